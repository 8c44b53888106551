#!/usr/bin/env node
// Executable entry of the init job (`npm run init -- <command>`, `node init-job/dist/main.js <command>` in the image).
import { hideBin } from 'yargs/helpers';
import { runCli } from './cli.js';

process.exitCode = await runCli(hideBin(process.argv), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
