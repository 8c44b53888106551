// GraphQL requests by operation: durations and the errors returned to clients. Operation names come from clients,
// so each has a label value only while it holds a slot of OperationNameLabels; a name that gives up its slot takes
// its series out of the registry.
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { DEFAULT_OPERATION_NAME_LABELS, OperationNameLabels } from '../operation-name-labels.js';
import type { OperationNameLimits } from '../operation-name-labels.js';

const OPERATION_TYPES = ['query', 'mutation', 'subscription', 'unknown'];

export interface GraphQLOperationMetrics {
  observe(operationType: string | null, operationName: string | null, seconds: number, errorCodes: readonly string[]): void;
}

export function graphqlOperationMetrics(registry: Registry, now: () => number, limits: Partial<OperationNameLimits> = {}): GraphQLOperationMetrics {
  const durations = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL request duration (parse, validate, execute, serialize), by operation type and name; unknown type when the document does not parse.',
    labelNames: ['operation_type', 'operation_name'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'graphql_errors_total',
    help: 'GraphQL errors returned to clients, by operation type and name and error code.',
    labelNames: ['operation_type', 'operation_name', 'code'],
    registers: [registry],
  });
  const errorSeries = new ErrorSeries();
  const names = new OperationNameLabels({
    ...DEFAULT_OPERATION_NAME_LABELS,
    ...limits,
    now,
    onRelease(name) {
      for (const operationType of OPERATION_TYPES) durations.remove({ operation_type: operationType, operation_name: name });
      for (const [operationType, code] of errorSeries.release(name)) errors.remove({ operation_type: operationType, operation_name: name, code });
    },
  });
  return {
    observe(operationType, operationName, seconds, errorCodes) {
      const name = operationName === null ? 'anonymous' : names.of(operationName);
      const labels = { operation_type: operationType ?? 'unknown', operation_name: name };
      durations.observe(labels, seconds);
      for (const code of errorCodes) {
        errors.inc({ ...labels, code });
        if (name !== 'anonymous' && name !== 'other') errorSeries.add(name, labels.operation_type, code);
      }
    },
  };
}

/** The (operation type, code) pairs of graphql_errors_total each slotted name has a series for. */
class ErrorSeries {
  private readonly byName = new Map<string, Set<string>>();

  add(name: string, operationType: string, code: string): void {
    const keys = this.byName.get(name) ?? new Set<string>();
    keys.add(JSON.stringify([operationType, code]));
    this.byName.set(name, keys);
  }

  /** The name's pairs, forgotten. */
  release(name: string): [string, string][] {
    const keys = this.byName.get(name) ?? [];
    this.byName.delete(name);
    return [...keys].map((key) => JSON.parse(key) as [string, string]);
  }
}
