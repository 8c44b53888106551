// A TCP proxy between a process under test and the shared node (which no test may stop), switchable between three
// states of the node as the process sees it: `forward` (up), `refuse` (gone: the port refuses connections and every
// open connection is cut) and `unavailable` (up but answering every HTTP request 503, as a node or load balancer
// that is overloaded or starting). Each switch cuts the open connections, so nothing from the previous state lingers.
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyState = 'forward' | 'refuse' | 'unavailable';

export interface OutageProxy {
  readonly port: number;
  readonly state: ProxyState;
  set(state: ProxyState): Promise<void>;
  close(): Promise<void>;
}

/** The body a node answers 503 with (the security plugin, a cluster without a master, or a proxy in front of it). */
export const UNAVAILABLE_BODY = { error: { type: 'cluster_block_exception', reason: 'blocked by: [SERVICE_UNAVAILABLE/outage-proxy]' }, status: 503 };

export async function startOutageProxy(target: { host: string; port: number }): Promise<OutageProxy> {
  const sockets = new Set<Socket>();
  let state: ProxyState = 'forward';
  let listener: Server | null = null;
  let port = 0;
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  const unavailable = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify(UNAVAILABLE_BODY));
    });
  });
  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        track(client);
        if (state === 'unavailable') {
          unavailable.emit('connection', client);
          return;
        }
        const upstream = connect(target.port, target.host);
        track(upstream);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        listener = server;
        resolve();
      });
    });
  const shut = (): Promise<void> =>
    new Promise((resolve) => {
      const server = listener;
      listener = null;
      if (server === null) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  await open();
  return {
    get port() {
      return port;
    },
    get state() {
      return state;
    },
    async set(next: ProxyState): Promise<void> {
      for (const s of sockets) s.destroy();
      sockets.clear();
      state = next;
      if (next === 'refuse') await shut();
      else if (listener === null) await open(); // the same port: the process's configuration does not change
    },
    async close(): Promise<void> {
      await shut();
      unavailable.close();
    },
  };
}
