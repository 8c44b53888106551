import type { CoreConfig } from '../../config.js';
import { table } from '../blocks.js';
import type { Section } from '../blocks.js';

export interface EndpointDoc {
  /** The paths (with a method where only one works) that answer alike. */
  readonly paths: readonly string[];
  /** Prose: `code` spans. */
  readonly what: string;
}

export function endpointDocs(config: CoreConfig): readonly EndpointDoc[] {
  return [
    { paths: ['POST /graphql'], what: 'GraphQL (JSON)' },
    { paths: ['/q/graphql-ui'], what: 'GraphiQL, works offline' },
    { paths: ['/graphql/schema.graphql'], what: 'the schema (SDL)' },
    {
      paths: ['/q/health/live', '/q/health/ready', '/q/health'],
      what: `MicroProfile Health JSON; ready checks the backend (${config.health.backendTimeoutMs} ms timeout) and disk space; 503 when DOWN`,
    },
    {
      paths: ['/q/metrics'],
      what: 'Prometheus text: process metrics, `http_server_requests_seconds`, `graphql_operation_duration_seconds`, `graphql_errors_total`, `workflow_index_pool_connections`, ingestion gauges `workflow_index_*`',
    },
    { paths: ['/docs'], what: 'this page (development mode only)' },
  ];
}

export function endpoints(config: CoreConfig): Section {
  return {
    id: 'endpoints',
    title: 'Endpoints',
    nav: 'Endpoints',
    blocks: [
      table(
        ['path', 'what'],
        endpointDocs(config).map(({ paths, what }) => [paths.map((path) => `\`${path}\``).join(', '), what]),
      ),
    ],
  };
}
