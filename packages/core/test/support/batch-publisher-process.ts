// A Herald in a process of its own that publishes batches with publishMany until it is killed, for
// publish-many-crash.test.ts. Run with
//   node --import ../engine/support/register-ts.mjs --conditions=herald-source batch-publisher-process.ts
// Env: MONGO_URI, DB_NAME, MASTER_KEY (base64), ORG, BATCHES, SIZE, INVALID_EVERY. Item i of batch b
// has the idempotency key `b<b>-<i>` and aggregate id `b<b>-<i>`; every INVALID_EVERY-th item is
// invalid (an empty aggregateId). Writes JSON lines: `{"ready": pid}`, `{"started": b}` before a
// batch is handed to publishMany, and `{"batch": b, "results": [{key, ok, eventId?, code?}]}` once
// its results are known.
import { MongoClient } from 'mongodb';
import { createHerald } from '../../src/index.js';
// Nothing is delivered: the rows the test counts are exactly the ones publishing wrote.
import { recordingEngine } from '../helpers.js';

interface ReportedResult {
  key: string;
  ok: boolean;
  eventId?: string;
  code?: string;
}

type PublisherMessage = { ready: number } | { started: number } | { batch: number; results: ReportedResult[] };

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const client = new MongoClient(env('MONGO_URI'));
await client.connect();
const herald = await createHerald({
  mongo: { db: client.db(env('DB_NAME')) },
  masterKeys: { current: 'k1', keys: { k1: env('MASTER_KEY') } },
  engineFactory: () => recordingEngine(),
});
const say = (message: PublisherMessage): void => { process.stdout.write(`${JSON.stringify(message)}\n`); };
say({ ready: process.pid });
// Stdin ends when the parent dies: the child never outlives the test that spawned it.
process.stdin.on('end', () => process.exit(0)).resume();

const scope = { orgId: env('ORG'), actor: 'batch-child' };
const size = Number(env('SIZE'));
const invalidEvery = Number(env('INVALID_EVERY'));
for (let batch = 0; batch < Number(env('BATCHES')); batch += 1) {
  const keys = Array.from({ length: size }, (_, index) => `b${batch}-${index}`);
  const items = keys.map((key, index) => ({
    eventType: 'crash.batched',
    aggregateId: index % invalidEvery === invalidEvery - 1 ? '' : key,
    data: { batch, index },
    idempotencyKey: key,
  }));
  say({ started: batch });
  const results = await herald.events.publishMany(scope, items);
  say({
    batch,
    results: results.map((result, index) =>
      result.ok ? { key: keys[index]!, ok: true, eventId: result.event.eventId } : { key: keys[index]!, ok: false, code: result.error.code },
    ),
  });
}
await herald.close();
await client.close();
