import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { CostBudget } from '../cost-budget.js';

/** GRAPHQL_MAX_COST_IN_FLIGHT: the rows held, waited for and allowed, and the requests waiting. */
export function costBudgetMetrics(registry: Registry, budget: CostBudget): void {
  new Gauge({
    name: 'workflow_index_cost_rows',
    help: 'Server-wide budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT, 0 = no bound): rows held by running requests (in_flight), rows of the requests waiting for room (waiting), and the budget (capacity).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'in_flight' }, budget.inFlight);
      this.set({ state: 'waiting' }, budget.waitingRows);
      this.set({ state: 'capacity' }, budget.capacity);
    },
  });
  new Gauge({
    name: 'workflow_index_cost_waiting_requests',
    help: 'Requests waiting for room in the budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT).',
    registers: [registry],
    collect() {
      this.set(budget.waiting);
    },
  });
}
