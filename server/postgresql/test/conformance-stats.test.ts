// The statistics conformance cases on real PostgreSQL (the conformance store: Fluent Bit's statements, the reader login).
import { describe } from 'vitest';
import { runStatsConformance } from '@workflow-index/testkit';
import { postgresReachable } from './support/test-database.js';
import { conformanceStore } from './support/conformance-store.js';

const available = await postgresReachable();

describe.skipIf(!available)('statistics conformance: PostgreSQL', () => {
  runStatsConformance({ name: 'postgresql', setup: conformanceStore });
});
