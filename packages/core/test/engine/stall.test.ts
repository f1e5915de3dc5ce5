// The engine's poll is stalled on purpose — its read of due rows does not return until the test
// lets it — while a retry is due. Each signal of engine/stall-watch.ts shows, once: the loop is
// reported stuck (not live), the stall is logged and published as `herald.delivery_stalled`; and
// once the poll returns, the retry is delivered and both are said to be over.
import type { Db, FindCursor } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDeliveryEngine } from '../../src/engine/index.js';
import { createHerald, type Herald } from '../../src/index.js';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { FAST_DELIVERY, eventually, scope } from './support/harness.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { randomBytes } from 'node:crypto';

/** While `held`, reads of the delivery queue's rows wait; `release` lets every waiting one run. */
class PollGate {
  held = false;
  private waiting: Array<() => void> = [];
  wait<T>(read: () => Promise<T>): Promise<T> {
    if (!this.held) return read();
    return new Promise<T>((resolve, reject) => this.waiting.push(() => read().then(resolve, reject)));
  }
  release(): void {
    this.held = false;
    for (const run of this.waiting.splice(0)) run();
  }
}

/** The same database, except that the queue's `find(...).toArray()` goes through the gate. */
function gatedQueueReads(db: Db, gate: PollGate): Db {
  const gatedCursor = (cursor: FindCursor): FindCursor =>
    new Proxy(cursor, {
      get(target, property) {
        if (property === 'toArray') return () => gate.wait(() => target.toArray());
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? gatedCursor(target) : result;
        };
      },
    });
  return new Proxy(db, {
    get(target, property) {
      if (property !== 'collection') return Reflect.get(target, property, target) as unknown;
      return (name: string, ...rest: unknown[]) => {
        const collection = (target.collection as (...a: unknown[]) => ReturnType<Db['collection']>)(name, ...rest);
        if (!name.endsWith('delivery_queue')) return collection;
        return new Proxy(collection, {
          get(inner, key) {
            if (key === 'find') return (...args: unknown[]) => gatedCursor((inner.find as (...a: unknown[]) => FindCursor)(...args));
            const value = Reflect.get(inner, key, inner) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(inner) : value;
          },
        });
      };
    },
  });
}

let database: TestDatabase;
let herald: Herald;
let receiver: Sink;
let operations: Sink;
const gate = new PollGate();
const logs: Array<{ level: string; msg: string }> = [];
const record = (level: string) => (_fields: object, msg: string) => { logs.push({ level, msg }); };
const said = (start: string) => logs.filter((line) => line.msg.startsWith(start));

beforeAll(async () => {
  database = await openTestDatabase('stall');
  // The gate holds the poll from the moment the first attempt is answered: every read before then
  // found its row in flight, so no poll can send its retry, which is due 300 ms later.
  receiver = await startSink((request, response, index) => {
    if (index === 0) gate.held = true;
    return answer(503)(request, response, index);
  });
  operations = await startSink(answer(204));
  herald = await createHerald({
    mongo: { db: database.db },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: { ...FAST_DELIVERY, retrySchedule: [300], maxAttempts: 5, stallAfterMs: 1_000, loopStuckAfterMs: 2_000 },
    // The MongoDB path on any store: FerretDB's lane would queue the first attempt's outcome behind
    // the held read, and no retry would ever come due. What is tested here is the watch.
    storeCompat: 'mongodb',
    engineFactory: (deps) => createDeliveryEngine({ ...deps, db: gatedQueueReads(deps.db, gate) }),
    logger: { debug: () => undefined, info: record('info'), warn: record('warn'), error: record('error') },
  });
  await herald.start();
  await herald.subscribers.create(scope, { displayName: 'receiver', targetUrl: receiver.url, events: ['order.*'] });
  await herald.subscribers.create(scope, { displayName: 'operations', targetUrl: operations.url, events: ['herald.*'] });
});
afterAll(async () => {
  gate.release();
  await herald?.close();
  await receiver?.close();
  await operations?.close();
  await database?.close();
});

test('a poll that does not return: the loop is reported stuck, the stall is said once, and both end when the poll returns', async () => {
  const { event } = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o1', data: {} });
  await receiver.waitFor(1); // the first attempt, sent without a poll, fails: its retry is due in 300 ms
  expect(herald.metrics().loop).toMatchObject({ stuck: false, stalled: false });

  const stuck = await eventually(async () => herald.metrics().loop, (loop) => loop.stuck && loop.stalled, 15_000);
  expect(stuck.stepForMs).toBeGreaterThanOrEqual(2_000);
  await eventually(async () => said('delivery stalled').length, (count) => count === 1, 10_000);
  const notice = await eventually(
    async () => operations.received.map((request) => JSON.parse(request.body.toString('utf8')) as { type: string; data: Record<string, unknown> }),
    (bodies) => bodies.some((body) => body.type === 'herald.delivery_stalled'),
    10_000,
  );
  const stalled = notice.find((body) => body.type === 'herald.delivery_stalled')!;
  // Judged when the stall began: whether the loop was stuck by then depends on the checks' timing.
  expect(typeof stalled.data.loopStuck).toBe('boolean');
  expect(stalled.data.waitingSeconds).toBeGreaterThanOrEqual(1);
  await eventually(async () => said('delivery loop stuck').length, (count) => count === 1, 10_000);
  expect(said('delivery loop stuck')[0]!.level).toBe('error');
  // Said once: several more checks pass while it lasts.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(said('delivery stalled')).toHaveLength(1);
  expect(said('delivery loop stuck')).toHaveLength(1);
  expect(receiver.received).toHaveLength(1);

  receiver.setHandler(answer(204));
  gate.release();
  const settled = await eventually(() => herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED', 15_000);
  expect(settled.deliveries[0]!.attempts).toBe(2);
  await eventually(async () => herald.metrics().loop, (loop) => !loop.stuck && !loop.stalled, 10_000);
  await eventually(async () => said('delivery loop moves again').length + said('delivery flows again').length, (count) => count === 2, 10_000);
}, 60_000);
