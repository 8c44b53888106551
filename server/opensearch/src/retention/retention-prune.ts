// A retention pass on demand (`init-job prune --backend opensearch`): the pass the normalizer runs periodically
// (retention-run.ts), by the stored rule (the default rule when none is stored) except where a horizon is given
// explicitly, trusting the stored checkpoint. With dryRun it only counts.
import type { Client } from '@opensearch-project/opensearch';
import { normalizedIndexNames } from '../normalized-indices.js';
import { DEFAULT_RETENTION_RULE, type RetentionOverrides, type RetentionRule, readRetentionRule, ruleWithOverrides } from './retention-rule.js';
import { type RetentionRunResult, runRetention } from './retention-run.js';

export interface OpenSearchPruneOptions {
  /** Prepended to every object name; tests and benchmarks on a shared node only. Production: ''. */
  readonly prefix?: string;
  /** Horizons given explicitly (a flag or the environment); unset ones keep the stored rule's. */
  readonly overrides?: RetentionOverrides;
  readonly dryRun?: boolean;
  /** Finished runs per delete batch. */
  readonly batchSize?: number;
  /** Called with the rule the pass applies, before anything is deleted. */
  readonly onRule?: (rule: RetentionRule) => void;
}

export async function pruneOpenSearch(client: Client, options: OpenSearchPruneOptions = {}): Promise<RetentionRunResult> {
  const prefix = options.prefix ?? '';
  const names = normalizedIndexNames(prefix);
  const stored = (await readRetentionRule(client, names.normalizerState)) ?? DEFAULT_RETENTION_RULE;
  const rule = ruleWithOverrides(stored, options.overrides);
  options.onRule?.(rule);
  return runRetention(client, { prefix, names, rule, dryRun: options.dryRun, batchSize: options.batchSize });
}
