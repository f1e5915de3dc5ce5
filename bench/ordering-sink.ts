// The receiver of the per-key ordering benchmark (bench/ordering.ts), in its own process so
// Herald's CPU is measured alone. Run: node bench/ordering-sink.ts → prints {"port": N}.
//   POST /control {"failRate": 0..1, "failKey"?: aggregateId, "failKeyUntil"?: epoch ms}
//        failRate: each attempt answered 500 with this probability, drawn from the attempt (see
//        failureDraw); failKey: every delivery of that aggregate answered 500 until failKeyUntil
//   GET  /receipts?since=K   receipts K.. as [deliveryId, aggregateId, sequence | null, receivedAtMs, status]
//   any other POST           a delivery
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

type Receipt = [deliveryId: string, aggregateId: string, sequence: number | null, receivedAtMs: number, status: number];
const receipts: Receipt[] = [];
let failRate = 0;
let failKey: string | undefined;
let failKeyUntil = 0;
const seed = process.env.BENCH_ORDER_SEED ?? 'herald';

/**
 * A number in [0, 1) that is a function of the attempt (its key, its event's index, its attempt
 * number) and the seed, not Math.random: the ordered and the unordered run, and both sides of a
 * paired run, meet the same failures. A run lasts as long as its unluckiest key's chain of failed
 * attempts (a row failing five times in a row waits 7.75 s), so with independent draws that chain
 * decided more of a comparison than the code did.
 */
function failureDraw(aggregateId: string, index: unknown, attempt: unknown): number {
  return createHash('sha256').update(`${seed}:${aggregateId}:${String(index)}:${String(attempt)}`).digest().readUInt32BE(0) / 2 ** 32;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = request.url ?? '/';
    if (url === '/control') {
      const control = JSON.parse(Buffer.concat(chunks).toString()) as { failRate: number; failKey?: string; failKeyUntil?: number };
      failRate = control.failRate;
      failKey = control.failKey;
      failKeyUntil = control.failKeyUntil ?? 0;
      response.writeHead(204).end();
      return;
    }
    if (url.startsWith('/receipts')) {
      const since = Number(new URL(url, 'http://sink').searchParams.get('since') ?? 0);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipts.slice(since)));
      return;
    }
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { aggregateId: string; sequence?: number; data?: { index?: number } };
    const fail = (body.aggregateId === failKey && now < failKeyUntil) || failureDraw(body.aggregateId, body.data?.index, request.headers['herald-attempt']) < failRate;
    const status = fail ? 500 : 200;
    receipts.push([String(request.headers['herald-delivery-id'] ?? ''), body.aggregateId, body.sequence ?? null, now, status]);
    response.writeHead(status, { 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
