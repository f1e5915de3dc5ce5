// publishMany killed in the middle of a batch (SIGKILL of the process publishing it,
// support/batch-publisher-process.ts): every event whose result was reported accepted is stored with
// all its rows, nothing reported refused is stored, and of the interrupted batch only valid events
// were stored, each whole once interrupted fan-outs are completed (what start() and the engine's
// periodic job do). On whichever store the run uses.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import { completeInterruptedFanOuts } from '../src/events/fan-out-recovery.js';
import { idempotentEventId } from '../src/events/ids.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { coreContextFor, recordingEngine, type RecordingEngine } from './helpers.js';

const ORG = 'org-batch-crash';
/** The batch takes ten group commits (100 events each) to write. */
const SIZE = 1000;
const INVALID_EVERY = 7;
/** Items of the interrupted batch sent again afterwards (each repeat of a stored event reads it back). */
const RESENT = 30;
const STARTUP_MS = 60_000;

interface ReportedResult {
  key: string;
  ok: boolean;
  eventId?: string;
  code?: string;
}
type PublisherMessage = { ready: number } | { started: number } | { batch: number; results: ReportedResult[] };

let database: TestDatabase;
let herald: Herald;
let engine: RecordingEngine;
let collections: Collections;
let masterKey: string;

beforeAll(async () => {
  database = await openTestDatabase('publish_many_crash');
  masterKey = randomBytes(32).toString('base64');
  engine = recordingEngine();
  herald = await createHerald({
    mongo: { db: database.db },
    masterKeys: { current: 'k1', keys: { k1: masterKey } },
    engineFactory: (deps) => {
      engine.deps = deps;
      return engine;
    },
  });
  collections = collectionsFor(database.db, 'herald_');
  await herald.subscribers.create({ orgId: ORG }, { id: 'sink-a', displayName: 'A', targetUrl: 'https://example.com/a', events: ['crash.*'] });
  await herald.subscribers.create({ orgId: ORG }, { id: 'sink-b', displayName: 'B', targetUrl: 'https://example.com/b', events: ['*'] });
}, STARTUP_MS);
afterAll(async () => {
  await herald?.close();
  await database?.close();
});

function spawnPublisher(): { child: ChildProcess; messages: PublisherMessage[]; next(match: (message: PublisherMessage) => boolean): Promise<PublisherMessage>; exited: Promise<unknown>; stderr(): string } {
  const here = import.meta.dirname;
  const child = spawn(
    process.execPath,
    ['--import', resolve(here, 'engine/support/register-ts.mjs'), '--conditions=herald-source', '--no-warnings', resolve(here, 'support/batch-publisher-process.ts')],
    {
      cwd: resolve(here, '../../..'),
      env: { ...process.env, MONGO_URI: database.uri, DB_NAME: database.dbName, MASTER_KEY: masterKey, ORG, BATCHES: '4', SIZE: String(SIZE), INVALID_EVERY: String(INVALID_EVERY) },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  child.stdin!.on('error', () => undefined);
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
  const messages: PublisherMessage[] = [];
  const waiting: Array<{ match(message: PublisherMessage): boolean; resolve(message: PublisherMessage): void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as PublisherMessage;
    messages.push(message);
    for (const entry of waiting.filter((item) => item.match(message))) {
      waiting.splice(waiting.indexOf(entry), 1);
      entry.resolve(message);
    }
  });
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  return {
    child,
    messages,
    next: (match) =>
      new Promise((resolveMessage, reject) => {
        const found = messages.find(match);
        if (found) return resolveMessage(found);
        waiting.push({ match, resolve: resolveMessage });
        void exited.then(() => reject(new Error(`publisher exited: ${errors.slice(-2000)}`)));
      }),
    exited,
    stderr: () => errors,
  };
}

const keyPrefix = (batch: number) => new RegExp(`^b${batch}-`);

test('SIGKILL in the middle of a batch: reported events are stored whole, refused ones never, and the interrupted batch holds only valid events', async () => {
  const publisher = spawnPublisher();
  try {
    await publisher.next((message) => 'ready' in message);
    const first = (await publisher.next((message) => 'batch' in message && message.batch === 0)) as { batch: number; results: ReportedResult[] };
    await publisher.next((message) => 'started' in message && message.started === 1);
    // Killed as soon as the second batch's first group commit is in the store (its first item's id
    // is derived from its key: a point read), with most of the batch still to be written.
    const firstOfBatch = idempotentEventId(ORG, 'b1-0');
    while ((await collections.events.findOne({ _id: firstOfBatch }, { projection: { _id: 1 } })) === null) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 2));
    }
    publisher.child.kill('SIGKILL');
    await publisher.exited;
    expect(publisher.messages.some((message) => 'batch' in message && message.batch === 1), 'the second batch finished before the kill').toBe(false);

    // Read back whole: on FerretDB v1 a long `$in` is matched against every document, one by one.
    const stored = async () => {
      const events = await collections.events.find({ orgId: ORG }, { projection: { _id: 1, aggregateId: 1 } }).toArray();
      const rows = await collections.queue.find({ orgId: ORG }, { projection: { eventId: 1 } }).toArray();
      const rowsPerEvent = new Map<string, number>();
      for (const row of rows) rowsPerEvent.set(row.eventId, (rowsPerEvent.get(row.eventId) ?? 0) + 1);
      return { events: new Map(events.map((event) => [event._id, event.aggregateId])), rowsPerEvent };
    };
    const inBatch = (events: Map<string, string>, batch: number) => [...events].filter(([, aggregateId]) => keyPrefix(batch).test(aggregateId)).map(([id]) => id);
    const afterKill = await stored();

    // The batch reported before the kill: accepted ones stored with all their rows, refused ones absent.
    expect(first.results).toHaveLength(SIZE);
    const reportedOk = first.results.filter((result) => result.ok);
    const reportedRefused = first.results.filter((result) => !result.ok);
    expect(reportedRefused.length).toBe(Math.floor(SIZE / INVALID_EVERY));
    expect(reportedRefused.every((result) => result.code === 'MISSING_REQUIRED_PARAMETER')).toBe(true);
    for (const result of reportedOk) {
      expect(afterKill.events.has(result.eventId!), `${result.key} reported accepted, not stored`).toBe(true);
      expect(afterKill.rowsPerEvent.get(result.eventId!), `${result.key} reported accepted, rows missing`).toBe(2);
    }
    for (const result of reportedRefused) expect(afterKill.events.has(idempotentEventId(ORG, result.key)), `${result.key} reported refused, stored`).toBe(false);
    expect(inBatch(afterKill.events, 0)).toHaveLength(reportedOk.length);

    // The interrupted batch: part of it stored, never an invalid item.
    const interrupted = inBatch(afterKill.events, 1);
    const validInBatch = SIZE - Math.floor(SIZE / INVALID_EVERY);
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.length).toBeLessThan(validInBatch);
    for (const eventId of interrupted) {
      const index = Number(afterKill.events.get(eventId)!.split('-')[1]);
      expect(index % INVALID_EVERY, `invalid item b1-${index} stored`).not.toBe(INVALID_EVERY - 1);
      expect(eventId).toBe(idempotentEventId(ORG, `b1-${index}`));
    }
    expect([...afterKill.events.values()].filter((aggregateId) => !/^b[01]-\d+$/.test(aggregateId))).toEqual([]);

    // A crash between an event's insert and its rows' leaves fewer rows than planned; the fan-out
    // recovery completes them, after which every stored event of the batch has all its rows.
    const context = coreContextFor({ herald, options: { mongo: { db: database.db }, masterKeys: { current: 'k1', keys: { k1: masterKey } } }, engine, database, close: async () => undefined });
    await completeInterruptedFanOuts(context, new Date(Date.now() + 60_000));
    const completed = await stored();
    for (const eventId of interrupted) expect(completed.rowsPerEvent.get(eventId), `rows of ${eventId}`).toBe(2);

    // Sending the start of the interrupted batch again with the same keys records each event once:
    // those stored answer with themselves, the others are published now.
    const resent = Array.from({ length: RESENT }, (_, index) => ({ eventType: 'crash.batched', aggregateId: index % INVALID_EVERY === INVALID_EVERY - 1 ? '' : `b1-${index}`, data: { batch: 1, index }, idempotencyKey: `b1-${index}` }));
    const again = await herald.events.publishMany({ orgId: ORG }, resent);
    const storedBefore = new Set(interrupted);
    for (const [index, result] of again.entries()) {
      if (index % INVALID_EVERY === INVALID_EVERY - 1) {
        expect(result.ok).toBe(false);
        continue;
      }
      if (!result.ok) throw new Error(`b1-${index}: ${result.error.message}`);
      expect(result.created, `b1-${index}`).toBe(!storedBefore.has(result.event.eventId));
    }
    const final = await stored();
    const resentIds = again.flatMap((result) => (result.ok ? [result.event.eventId] : []));
    expect(new Set(resentIds).size).toBe(resentIds.length);
    for (const eventId of resentIds) {
      expect(final.events.has(eventId)).toBe(true);
      expect(final.rowsPerEvent.get(eventId)).toBe(2);
    }
  } finally {
    publisher.child.kill('SIGKILL');
    await publisher.exited;
  }
}, 240_000);
