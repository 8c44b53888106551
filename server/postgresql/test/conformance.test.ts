// The shared conformance suite on real PostgreSQL: a fresh migrated database, the events written by a
// forwarder login role exactly as Fluent Bit writes them, the reader connected as a reader login role
// (support/conformance-store.ts).
import { describe } from 'vitest';
import { runConformanceSuite } from '@workflow-index/testkit';
import { postgresReachable } from './support/test-database.js';
import { conformanceStore } from './support/conformance-store.js';

const available = await postgresReachable();

describe.skipIf(!available)('conformance: PostgreSQL', () => {
  runConformanceSuite({ name: 'postgresql', setup: conformanceStore });
});
