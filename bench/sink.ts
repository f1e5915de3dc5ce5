// The benchmark's receiver, in its own process so Herald's CPU and memory are measured alone.
// Plain node:http on 127.0.0.1. Run: node bench/sink.ts  → prints {"port": N} on stdout.
//   POST /control {"failRate": 0..1, "status"?: N}  fraction of deliveries answered N (500 by
//                                     default; deterministic by count)
//   GET  /receipts?since=K            receipts K.. as [deliveryId, eventId, receivedAtMs, status]
//   POST /reset                       forget receipts
//   POST /hang/…                      a receiver that never answers (the request is held open)
//   POST /fail/…                      a receiver that answers 500 to every attempt (not recorded)
//   any other POST                    a delivery: answered 200, or 500 per failRate
import { createServer } from 'node:http';

type Receipt = [deliveryId: string, eventId: string, receivedAtMs: number, status: number];
const receipts: Receipt[] = [];
let failRate = 0;
let failureBudget = 0;
let failStatus = 500;

const server = createServer((request, response) => {
  if (request.url?.startsWith('/hang')) {
    request.resume();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = request.url ?? '/';
    if (url === '/control') {
      const control = JSON.parse(Buffer.concat(chunks).toString()) as { failRate: number; status?: number };
      failRate = control.failRate;
      failStatus = control.status ?? 500;
      failureBudget = 0;
      response.writeHead(204).end();
      return;
    }
    if (url === '/reset') {
      receipts.length = 0;
      response.writeHead(204).end();
      return;
    }
    if (url.startsWith('/fail')) {
      response.writeHead(500, { 'content-length': '4' }).end('fail');
      return;
    }
    if (url.startsWith('/receipts')) {
      const since = Number(new URL(url, 'http://sink').searchParams.get('since') ?? 0);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipts.slice(since)));
      return;
    }
    // Deterministic fraction: accumulate failRate per request, fail when it reaches 1.
    failureBudget += failRate;
    const fail = failureBudget >= 1;
    if (fail) failureBudget -= 1;
    const status = fail ? failStatus : 200;
    const deliveryId = String(request.headers['herald-delivery-id'] ?? request.headers['x-raw-id'] ?? '');
    receipts.push([deliveryId, String(request.headers['webhook-id'] ?? ''), Date.now(), status]);
    response.writeHead(status, { 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
