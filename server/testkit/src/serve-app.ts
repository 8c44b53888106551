// An app served by a real node:http server on a free loopback port, for tests that need real sockets (event streams,
// client disconnects); close() drains the app and drops open connections before closing the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@workflow-index/core';

export interface ServedApp {
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function serveApp(app: App): Promise<ServedApp> {
  const server = http.createServer((req, res) => app.handleNodeRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      app.startDraining();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
