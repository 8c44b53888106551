// A real backend's Reader with its listInstances calls counted (in flight at once, rows asked for per call), and a
// failure injected on the nth call when a test asks for one; every other member is the reader's own.
import { BackendUnavailableError, type Reader } from '@workflow-index/core';

export interface ListCalls {
  calls: number;
  inFlight: number;
  maxInFlight: number;
  maxLimit: number;
  /** The 1-based call that fails with BackendUnavailableError; null: none. */
  failAt: number | null;
}

export function countingReader(reader: Reader): { reader: Reader; stats: ListCalls } {
  const stats: ListCalls = { calls: 0, inFlight: 0, maxInFlight: 0, maxLimit: 0, failAt: null };
  const listInstances: Reader['listInstances'] = async (query) => {
    stats.calls++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    stats.maxLimit = Math.max(stats.maxLimit, query.limit);
    try {
      if (stats.calls === stats.failAt) throw new BackendUnavailableError('injected: the backend went away');
      return await reader.listInstances(query);
    } finally {
      stats.inFlight--;
    }
  };
  const proxy = new Proxy(reader, {
    get(target, property) {
      if (property === 'listInstances') return listInstances;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { reader: proxy, stats };
}

export function resetCalls(stats: ListCalls): void {
  Object.assign(stats, { calls: 0, inFlight: 0, maxInFlight: 0, maxLimit: 0, failAt: null });
}
