// Benchmark (not a test) of @herald/core's data model against a throwaway FerretDB:
// publish() latency p50/p99 and subscriber CRUD throughput. Delivery is out of scope here: the
// engine is replaced by a no-op, so the figures are the cost of recording and fanning out.
//
//   npm run bench:core            (builds, then runs this file with Node 24 against dist/)
//   BENCH_PUBLISHES=2000 npm run bench:core
import { randomBytes } from 'node:crypto';
import { createHerald, type Herald } from '@herald/core';
import { startFerretDb } from '../../../test/support/ferretdb.ts';

const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 500);
const CRUD_OPS = Number(process.env.BENCH_CRUD_OPS ?? 300);
const BACKGROUND_SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const MATCHING_SUBSCRIBERS = 10;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  console.log(
    `${label.padEnd(44)} n=${String(samples.length).padStart(5)}  p50=${percentile(sorted, 50).toFixed(2)} ms  ` +
      `p99=${percentile(sorted, 99).toFixed(2)} ms  mean=${mean.toFixed(2)} ms  max=${(sorted.at(-1) ?? 0).toFixed(2)} ms`,
  );
}

async function timed<T>(samples: number[], run: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  const result = await run();
  samples.push(performance.now() - startedAt);
  return result;
}

async function throughput(label: string, count: number, concurrency: number, operation: (index: number) => Promise<unknown>) {
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await operation(next++);
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(`${label.padEnd(44)} ${count} ops in ${seconds.toFixed(2)} s = ${(count / seconds).toFixed(0)} ops/s (concurrency ${concurrency})`);
}

async function benchCrud(herald: Herald): Promise<void> {
  const scope = { orgId: 'bench-crud', actor: 'bench' };
  const body = (index: number) => ({
    id: `crud-${index}`,
    displayName: `Subscriber ${index}`,
    targetUrl: `https://hooks.example.com/${index}`,
    events: ['invoice.*', 'user.created'],
    secret: `secret-${index}-0123456789abcdef`,
  });
  await throughput('subscribers.create (with secret)', CRUD_OPS, 1, (index) => herald.subscribers.create(scope, body(index)));
  await throughput('subscribers.get', CRUD_OPS, 1, (index) => herald.subscribers.get(scope, `crud-${index}`));
  await throughput('subscribers.update (displayName)', CRUD_OPS, 1, (index) =>
    herald.subscribers.update(scope, `crud-${index}`, { displayName: `Renamed ${index}` }),
  );
  await throughput('subscribers.list (limit 20)', 50, 1, (index) => herald.subscribers.list(scope, { limit: 20, offset: index * 5 }));
  await throughput('subscribers.delete', CRUD_OPS, 1, (index) => herald.subscribers.delete(scope, `crud-${index}`));
  await throughput('subscribers.create (concurrent)', CRUD_OPS, 8, (index) =>
    herald.subscribers.create(scope, { ...body(index), id: `par-${index}` }),
  );
}

async function benchPublish(herald: Herald): Promise<void> {
  const scope = { orgId: 'bench-publish' };
  for (let index = 0; index < BACKGROUND_SUBSCRIBERS; index++) {
    await herald.subscribers.create(scope, {
      displayName: `bg ${index}`,
      targetUrl: `https://bg.example.com/${index}`,
      events: [`family${index % 40}.action${index % 9}`],
    });
  }
  for (let index = 0; index < MATCHING_SUBSCRIBERS; index++) {
    await herald.subscribers.create(scope, {
      displayName: `match ${index}`,
      targetUrl: `https://match.example.com/${index}`,
      events: [index % 2 === 0 ? 'payment.*' : 'payment.captured'],
      ...(index % 3 === 0 ? {} : { secret: `match-secret-${index}-0123456789` }),
    });
  }
  const matched: number[] = [];
  for (let index = 0; index < PUBLISHES; index++) {
    await timed(matched, () =>
      herald.events.publish(scope, {
        eventType: 'payment.captured',
        aggregateId: `pay_${index}`,
        data: { amount: index, currency: 'EUR', cardNumber: '4111111111111111' },
        sensitive: ['cardNumber'],
      }),
    );
  }
  summary(`publish → ${MATCHING_SUBSCRIBERS} of ${BACKGROUND_SUBSCRIBERS + MATCHING_SUBSCRIBERS} subscribers (sensitive field)`, matched);
  const unmatched: number[] = [];
  for (let index = 0; index < Math.min(PUBLISHES, 200); index++) {
    await timed(unmatched, () => herald.events.publish(scope, { eventType: 'nobody.listens', aggregateId: `${index}`, data: {} }));
  }
  summary('publish → no subscriber', unmatched);
  const idempotent: number[] = [];
  for (let index = 0; index < Math.min(PUBLISHES, 200); index++) {
    await timed(idempotent, () =>
      herald.events.publish(scope, { eventType: 'nobody.listens', aggregateId: 'same', data: {} }, { idempotencyKey: 'repeat' }),
    );
  }
  summary('publish, repeated idempotency key', idempotent);
}

// MONGODB_URI runs the benchmark against another server; by default it starts FerretDB/PostgreSQL.
const ferret = process.env.MONGODB_URI ? { uri: process.env.MONGODB_URI, stop: async () => {} } : await startFerretDb();
const herald = await createHerald({
  mongo: { uri: ferret.uri, dbName: 'herald_bench' },
  masterKeys: { current: 'bench', keys: { bench: randomBytes(32) } },
  engineFactory: () => ({
    async start() {},
    async stop() {},
    notify() {},
    running: false,
    metrics: () => ({ inFlight: 0, delivered: 0, failed: 0, retried: 0 }),
  }),
});
try {
  console.log(`@herald/core benchmark — FerretDB ${ferret.uri}, Node ${process.version}`);
  await benchCrud(herald);
  await benchPublish(herald);
} finally {
  await herald.close();
  await ferret.stop();
}
