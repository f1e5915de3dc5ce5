// Rows the publisher hands the engine in memory (handover/fast-path.ts) are sent and recorded
// without the engine reading their event back, on either store path.
import type { CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Herald } from '../../src/index.js';
import type { TestDatabase } from '../../../../test/support/mongo.js';
import { eventually, scope, startWatchedHarness, type WatchedHarness } from './support/harness.js';
import { startSink, type Sink } from './support/sink.js';

let harness: WatchedHarness;
let database: TestDatabase;
let herald: Herald;
let sink: Sink;
let started: CommandStartedEvent[];

beforeAll(async () => {
  sink = await startSink();
  harness = await startWatchedHarness('fast_path');
  ({ database, herald, started } = harness);
  await herald.start();
});
afterAll(async () => {
  await harness.close();
  await sink.close();
});

/**
 * Whether a command reads this event's payload by its id, as sending its rows would. The
 * maintenance pass may recount an event it read as quiet just before its last row settled (a
 * loaded machine); that read names the few fields a recount needs, and no payload.
 */
function readsEvent(command: CommandStartedEvent, eventId: string): boolean {
  if (command.commandName !== 'find' || command.command.find !== 'herald_events') return false;
  const projection = (command.command.projection ?? {}) as Record<string, unknown>;
  if (Object.values(projection).some((value) => value === 1 || value === true) && projection.data === undefined) return false;
  const id = (command.command.filter as { _id?: unknown } | undefined)?._id;
  return id === eventId || JSON.stringify(id ?? null).includes(eventId);
}

test('a fresh event is delivered and its status written without the engine reading the event back', async () => {
  for (let i = 0; i < 3; i++) await herald.subscribers.create(scope, { displayName: `fast ${i}`, targetUrl: `${sink.url}/${i}`, events: ['order.*'] });
  started.length = 0;
  const { event } = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o-1', data: { total: 1 } });
  // Watched through the test's own client: every command seen on Herald's is Herald's.
  const stored = await eventually(
    () => database.db.collection<{ _id: string; status: string }>('herald_events').findOne({ _id: event.eventId }),
    (document) => document?.status === 'ALL_DELIVERED',
  );
  expect(stored).toMatchObject({ openDeliveries: 0, failedDeliveries: 0 });
  expect(sink.received).toHaveLength(3);
  expect(started.filter((command) => readsEvent(command, event.eventId))).toEqual([]);
});

test('a settled event drops its fan-out plan: it has all its rows, and the history does not carry the list', async () => {
  const { event } = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o-2', data: { total: 2 } });
  const stored = await eventually(
    () => database.db.collection<{ _id: string; status: string }>('herald_events').findOne({ _id: event.eventId }),
    (document) => document?.status === 'ALL_DELIVERED',
  );
  expect(stored).toMatchObject({ deliveryCount: 3, openDeliveries: 0 });
  expect(stored).not.toHaveProperty('subscriberIds');
});

test('rows left to the poll (no free slot) are sent without the engine reading their event back', async () => {
  await herald.subscribers.create(scope, { displayName: 'one at a time', targetUrl: `${sink.url}/serial`, events: ['invoice.*'], maxConcurrency: 1 });
  started.length = 0;
  // Published together, they make one batch: one row gets the subscriber's one slot, the rest wait for the poll.
  const published = await Promise.all(
    Array.from({ length: 6 }, (_, index) => herald.events.publish(scope, { eventType: 'invoice.paid', aggregateId: `i-${index}`, data: { index } })),
  );
  const eventIds = published.map(({ event }) => event.eventId);
  const events = database.db.collection<{ _id: string; status: string }>('herald_events');
  await eventually(
    () => events.find({ _id: { $in: eventIds } }).toArray(),
    (documents) => documents.length === eventIds.length && documents.every((document) => document.status === 'ALL_DELIVERED'),
  );
  expect(sink.received.filter((request) => request.path.endsWith('/serial'))).toHaveLength(eventIds.length);
  const claims = started.filter((command) => command.commandName === 'update' && command.command.update === 'herald_delivery_queue');
  expect(claims.length).toBeGreaterThan(0);
  expect(started.filter((command) => eventIds.some((eventId) => readsEvent(command, eventId)))).toEqual([]);
});
