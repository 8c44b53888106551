// The init job as a library: its CLI (main.ts runs it) and the settings the deployment's CronJob and Job pass it.
export { runCli } from './cli.js';
export { DEFAULT_PRUNE_BATCH_SIZE, resolvePruneSettings } from './prune-command.js';
