// The invariants of concurrency.test.ts across two processes (issue 33): this test's Herald and one
// in a child Node process (support/writer-process.ts) write to one database at the same moment.
// Two clients in one process already share nothing Herald holds in memory; a second process also
// rules out anything shared through the module graph or a single event loop's ordering, as in a
// deployment of several API hosts. On whichever store the run uses (FerretDB v1 by default,
// memory-mongo in scripts/test-memory-mongo.sh, or MONGODB_URI).
//
// Each step arms the child with its command, then lets it go as this process starts its own writes,
// so both sides' operations overlap; the test also checks from both sides' timings that they did.
// Neither side delivers: both run the recording engine, so the rows counted are the ones publishing
// wrote. ROUNDS from HERALD_CONCURRENCY_ROUNDS (default 5).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { recordingEngine } from './helpers.js';
import { spawnWriter, type Armed, type SubscriberToCreate, type Timed, type WriterChild, type WriterCommand, type WriterResult } from './support/writer-child.js';

const ROUNDS = Number(process.env.HERALD_CONCURRENCY_ROUNDS ?? 5);
/** Subscribers each process creates per round. */
const CREATES = 8;
/** Updates of the one subscriber each process sends per round, all at once. */
const UPDATES = 4;
/** Publishes with the one idempotency key each process sends per round, all at once. */
const REPEATS = 4;
/** A child that loads Herald's sources unbuilt on a loaded 2-core machine takes seconds to open. */
const STARTUP_MS = 60_000;
/** Per test, for ROUNDS rounds on a loaded machine; a round takes well under a second unloaded. */
const TEST_MS = 20_000 + ROUNDS * 8_000;

let database: TestDatabase;
let herald: Herald;
let writer: WriterChild | undefined;
let collections: Collections;

beforeAll(async () => {
  database = await openTestDatabase('concurrency_processes');
  // One key for both processes, passed to the child as text, so each can read what the other sealed.
  const masterKey = randomBytes(32).toString('base64');
  herald = await createHerald({ mongo: { db: database.db }, masterKeys: { current: 'k1', keys: { k1: masterKey } }, engineFactory: () => recordingEngine() });
  collections = collectionsFor(database.db, 'herald_');
  // Spawned after this Herald has set the database up, so the two do not race creating indexes.
  writer = spawnWriter({ MONGO_URI: database.uri, DB_NAME: database.dbName, MASTER_KEY: masterKey });
  await writer.ready;
}, STARTUP_MS);

afterAll(async () => {
  // First, so the child goes even when this Herald or the database fails to close.
  await writer?.stop();
  await herald?.close();
  await database?.close();
}, STARTUP_MS);

function child(): WriterChild {
  if (!writer) throw new Error('writer process not started');
  return writer;
}

const now = (): number => performance.timeOrigin + performance.now();

/** Lets the armed child go and runs this process's writes at the same moment; both results, timed. */
async function together<C extends WriterCommand, T>(armed: Armed<C>, own: () => Promise<T>): Promise<{ ours: Timed<T>; theirs: Timed<WriterResult<C>> }> {
  const theirs = armed.go();
  const startedAt = now();
  const ours = own().then((value) => ({ value, startedAt, endedAt: now() }));
  const [oursDone, theirsDone] = await Promise.all([ours, theirs]);
  return { ours: oursDone, theirs: theirsDone };
}

/** Both sides' operations were running at one moment (both clocks are this machine's wall clock). */
function overlapped(a: Timed<unknown>, b: Timed<unknown>): boolean {
  return a.startedAt < b.endedAt && b.startedAt < a.endedAt;
}

async function rowsOf(eventId: string): Promise<string[]> {
  const rows = await collections.queue.find({ eventId }, { projection: { subscriberHandle: 1 } }).toArray();
  return rows.map((row) => row.subscriberHandle).sort();
}

/** Patterns that all match `invoice.paid`, so both the exact and the wildcard paths of matching are used. */
const PATTERNS = [['invoice.paid'], ['invoice.*'], ['*.paid'], ['*']];

function subscribersFor(side: string): SubscriberToCreate[] {
  return Array.from({ length: CREATES }, (_, index) => {
    const id = `${side}-${index}`;
    return { id, displayName: id, targetUrl: `https://example.com/${id}`, events: PATTERNS[index % PATTERNS.length]! };
  });
}

describe('two processes on one database', () => {
  test(`${CREATES} subscribers created by each process at once all receive the next publish of either (${ROUNDS} rounds)`, async () => {
    let overlaps = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `fanout-${round}` };
      const publish = { eventType: 'invoice.paid', data: {} };
      // A publish on each side first, so both hold cached matches that the creates must invalidate.
      await herald.events.publish(scope, { ...publish, aggregateId: 'warm' });
      await (await child().arm({ op: 'publish', orgId: scope.orgId, ...publish, aggregateId: 'warm', count: 1 })).go();

      const ours = subscribersFor('parent');
      const theirs = subscribersFor('child');
      const creates = await together(await child().arm({ op: 'create', orgId: scope.orgId, subscribers: theirs }), () =>
        Promise.all(ours.map((subscriber) => herald.subscribers.create(scope, subscriber))),
      );
      if (overlapped(creates.ours, creates.theirs)) overlaps += 1;
      const handles = [...ours, ...theirs].map((subscriber) => subscriber.id).sort();

      // Every create has answered on both sides: each publish must now match all of them.
      const publishes = await together(await child().arm({ op: 'publish', orgId: scope.orgId, ...publish, aggregateId: `after-${round}`, count: 1 }), () =>
        herald.events.publish(scope, { ...publish, aggregateId: `after-${round}` }),
      );
      const events = [publishes.ours.value.event.eventId, publishes.theirs.value[0]!.eventId];
      expect(new Set(events).size).toBe(2);
      for (const eventId of events) expect(await rowsOf(eventId), `round ${round}, event ${eventId}`).toEqual(handles);
    }
    console.log(`fan-out: ${ROUNDS} rounds, the two processes' creates overlapped in ${overlaps}`);
    // The creates of every round must have run at the same time, or the rounds proved nothing.
    expect(overlaps).toBe(ROUNDS);
  }, TEST_MS);

  test(`concurrent updates of one subscriber from both processes: each that answered is one revision (${ROUNDS} rounds)`, async () => {
    let sent = 0;
    let conflicts = 0;
    let overlaps = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `update-${round}` };
      await herald.subscribers.create(scope, { id: 'one', displayName: 'one', targetUrl: 'https://example.com/one', events: ['invoice.paid'] });
      const ourNames = Array.from({ length: UPDATES }, (_, index) => `parent-${round}-${index}`);
      const theirNames = Array.from({ length: UPDATES }, (_, index) => `child-${round}-${index}`);
      const updates = await together(await child().arm({ op: 'update', orgId: scope.orgId, handle: 'one', displayNames: theirNames }), () =>
        Promise.allSettled(ourNames.map((displayName) => herald.subscribers.update(scope, 'one', { displayName }))),
      );
      if (overlapped(updates.ours, updates.theirs)) overlaps += 1;

      const outcomes = [
        ...updates.ours.value.map((result, index) =>
          result.status === 'fulfilled'
            ? { displayName: ourNames[index]!, answered: true as const }
            : { displayName: ourNames[index]!, answered: false as const, code: (result.reason as { code?: string }).code, message: String(result.reason) },
        ),
        ...updates.theirs.value,
      ];
      sent += outcomes.length;
      // A writer that kept losing the race is told so (409), never silently dropped; nothing else may fail.
      for (const outcome of outcomes) if (!outcome.answered) expect(outcome.code, outcome.message).toBe('CONFLICT');
      const answered = outcomes.filter((outcome) => outcome.answered);
      conflicts += outcomes.length - answered.length;

      const stored = await collections.subscribers.findOne({ orgId: scope.orgId, handle: 'one' });
      expect(stored!.revision, `round ${round}`).toBe(answered.length);
      expect(answered.map((outcome) => outcome.displayName)).toContain(stored!.displayName);
    }
    console.log(`concurrent updates across processes: ${sent} sent, ${conflicts} answered 409 (retry); overlapped in ${overlaps} of ${ROUNDS} rounds`);
    expect(overlaps).toBe(ROUNDS);
  }, TEST_MS);

  test(`one event per idempotency key when both processes publish it at once (${ROUNDS} rounds)`, async () => {
    let overlaps = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `idempotent-${round}` };
      await herald.subscribers.create(scope, { id: 'one', displayName: 'one', targetUrl: 'https://example.com/one', events: ['invoice.paid'] });
      const request = { eventType: 'invoice.paid', aggregateId: 'a', data: { n: round } };
      const idempotencyKey = `key-${round}`;
      const publishes = await together(await child().arm({ op: 'publish', orgId: scope.orgId, ...request, idempotencyKey, count: REPEATS }), () =>
        Promise.all(Array.from({ length: REPEATS }, () => herald.events.publish(scope, request, { idempotencyKey }))),
      );
      if (overlapped(publishes.ours, publishes.theirs)) overlaps += 1;

      const results = [...publishes.ours.value.map((result) => ({ eventId: result.event.eventId, created: result.created })), ...publishes.theirs.value];
      expect(new Set(results.map((result) => result.eventId)).size, `round ${round}`).toBe(1);
      expect(results.filter((result) => result.created), `round ${round}`).toHaveLength(1);
      expect(await collections.events.countDocuments({ orgId: scope.orgId })).toBe(1);
      expect(await rowsOf(results[0]!.eventId)).toEqual(['one']);
    }
    console.log(`idempotent publishes: ${ROUNDS} rounds, overlapped in ${overlaps}`);
    expect(overlaps).toBe(ROUNDS);
  }, TEST_MS);
});
