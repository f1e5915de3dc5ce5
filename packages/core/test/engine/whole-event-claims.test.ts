// On the path where a claim writes a statement per row (the seam's `pointReads`, FerretDB v1), the
// poll claims all of an event's rows by one statement on the event's index, and the others by
// `_id`: every row is still sent exactly once (engine/store/whole-event-claims.ts). Forced onto that
// path with `storeCompat`, so it runs on every test store.
import type { Document } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventually, scope, startWatchedHarness, type WatchedHarness } from './support/harness.js';
import { startSink, type Sink } from './support/sink.js';

let harness: WatchedHarness;
let sink: Sink;

beforeAll(async () => {
  sink = await startSink();
  harness = await startWatchedHarness('whole_event_claims', { storeCompat: 'ferretdb-v1' });
});
afterAll(async () => {
  await harness.close();
  await sink.close();
});

/** The claims' statements: updates of queued rows to IN_FLIGHT, with their filters. */
function claimStatements(): { filter: Document; multi: boolean }[] {
  return harness.started
    .filter((command) => command.commandName === 'update' && command.command.update === 'herald_delivery_queue')
    .flatMap((command) => command.command.updates as { q: Document; u: { $set?: { status?: string } }; multi?: boolean }[])
    .filter((update) => update.u.$set?.status === 'IN_FLIGHT')
    .map((update) => ({ filter: update.q, multi: update.multi === true }));
}

test('whole events are claimed by their event, the rest by `_id`; each row is sent once, none before it is due', async () => {
  const { herald, database, started } = harness;
  for (const name of ['a', 'b', 'c']) await herald.subscribers.create(scope, { displayName: `whole ${name}`, targetUrl: `${sink.url}/${name}`, events: ['order.*'] });
  // Published before the engine runs: every row waits for the poll.
  const results = await herald.events.publishMany(scope, Array.from({ length: 8 }, (_, index) => ({ eventType: 'order.created', aggregateId: `o-${index}`, data: { index } })));
  const eventIds = results.map((result) => (result.ok ? result.event.eventId : ''));
  const queue = database.db.collection<{ _id: string; eventId: string; status: string; nextAttemptAt: Date }>('herald_delivery_queue');
  expect(await queue.countDocuments({ eventId: { $in: eventIds }, status: 'PENDING' })).toBe(24);
  // One row of the first event is due later: its event is never whole in a claim, and an event's
  // equality must not take the row before its time.
  const dueLater = new Date(Date.now() + 1_500);
  const late = (await queue.findOne({ eventId: eventIds[0]! }))!;
  await queue.updateOne({ _id: late._id }, { $set: { nextAttemptAt: dueLater } });
  started.length = 0;
  await herald.start();
  await eventually(
    () => database.db.collection<{ _id: string; status: string }>('herald_events').find({ _id: { $in: eventIds } }).toArray(),
    (events) => events.length === 8 && events.every((event) => event.status === 'ALL_DELIVERED'),
  );
  const delivered = sink.received.map((request) => `${request.path} ${String(request.headers['webhook-id'])}`);
  expect(delivered).toHaveLength(24);
  expect(new Set(delivered).size).toBe(24);
  // On a loaded machine a poll can read the queue before an earlier poll's claim lands, or find an
  // event's rows re-dated one by one, and claim rows by `_id` that a quiet run claims by their event.
  // What holds on any machine: whole events are claimed by their event, never the first event
  // (its late row keeps it from being whole), and each of the first event's rows by `_id`.
  const claims = claimStatements();
  const byEvent = claims.filter((claim) => 'eventId' in claim.filter);
  expect(byEvent.length).toBeGreaterThan(0);
  for (const claim of byEvent) {
    expect(eventIds.slice(1)).toContain(claim.filter.eventId);
    expect(claim.multi).toBe(true);
  }
  const byId = new Set(claims.filter((claim) => '_id' in claim.filter).map((claim) => String(claim.filter._id)));
  const firstEventRows = await database.db.collection<{ _id: string; eventId: string }>('herald_deliveries').find({ eventId: eventIds[0]! }).toArray();
  expect(firstEventRows).toHaveLength(3);
  for (const row of firstEventRows) expect(byId.has(row._id)).toBe(true);
  const lateRow = await database.db.collection<{ _id: string; lastAttemptAt: Date }>('herald_deliveries').findOne({ _id: late._id });
  expect(lateRow!.lastAttemptAt.getTime()).toBeGreaterThanOrEqual(dueLater.getTime());
});
