// WorkflowInstance.events on real PostgreSQL: the shared event-history suite over the conformance store (a fresh
// migrated database, the events written by a forwarder login as Fluent Bit writes them, read by a reader login).
import { describe } from 'vitest';
import { runEventHistorySuite } from '@workflow-index/testkit';
import { postgresReachable } from './support/test-database.js';
import { conformanceStore } from './support/conformance-store.js';

const available = await postgresReachable();

describe.skipIf(!available)('event history: PostgreSQL', () => {
  runEventHistorySuite({ name: 'postgresql', setup: conformanceStore });
});
