// /healthz, /readyz and /metrics of the operator process (edge).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OpsProbes {
  /** Process is alive and its loops are turning. */
  healthy(): boolean;
  /** Standby replicas are ready (they are healthy and waiting); the leader once its caches synced. */
  ready(): boolean;
  /** The Prometheus exposition and its content type. */
  metrics: { contentType: string; render(): Promise<string> };
}

export async function startOpsServer(host: string, port: number, probes: OpsProbes): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (request.method !== 'GET') return answer(405, 'method not allowed\n');
    if (path === '/healthz') return probes.healthy() ? answer(200, 'ok\n') : answer(503, 'unhealthy\n');
    if (path === '/readyz') return probes.ready() ? answer(200, 'ok\n') : answer(503, 'not ready\n');
    if (path === '/metrics') {
      probes.metrics.render().then(
        (text) => answer(200, text, probes.metrics.contentType),
        () => answer(500, 'metrics unavailable\n'),
      );
      return;
    }
    return answer(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
