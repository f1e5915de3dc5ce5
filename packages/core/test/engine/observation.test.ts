// Every attempt is observable from outside the engine through two diagnostics channels: a start and
// an end per attempt, naming the delivery and how it ended, and nothing of the event's data.
import diagnostics from 'node:diagnostics_channel';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ATTEMPT_END_CHANNEL, ATTEMPT_START_CHANNEL, type AttemptEndMessage, type AttemptStartMessage } from '../../src/index.js';
import { eventSettles, scope, startHarness, type Harness } from './support/harness.js';
import { answer, startSink, type Sink } from './support/sink.js';

let harness: Harness;
let sink: Sink;
const starts: AttemptStartMessage[] = [];
const ends: AttemptEndMessage[] = [];
const onStart = (message: unknown) => starts.push(message as AttemptStartMessage);
const onEnd = (message: unknown) => ends.push(message as AttemptEndMessage);

beforeAll(async () => {
  diagnostics.subscribe(ATTEMPT_START_CHANNEL, onStart);
  diagnostics.subscribe(ATTEMPT_END_CHANNEL, onEnd);
  sink = await startSink();
  harness = await startHarness({ delivery: { retrySchedule: [50], maxAttempts: 2 } });
});
afterAll(async () => {
  diagnostics.unsubscribe(ATTEMPT_START_CHANNEL, onStart);
  diagnostics.unsubscribe(ATTEMPT_END_CHANNEL, onEnd);
  await harness.close();
  await sink.close();
});

test('a retried delivery publishes a start and an end for each attempt, with its outcome and no event data', async () => {
  sink.setHandler((request, response, index) => answer(index === 0 ? 503 : 200)(request, response, index));
  const subscriber = await harness.herald.subscribers.create(scope, { displayName: 'observed', targetUrl: `${sink.url}/observed`, events: ['card.*'] });
  const { event } = await harness.herald.events.publish(scope, { eventType: 'card.issued', aggregateId: 'c-1', data: { pan: '4111111111111111' } });
  const settled = await eventSettles(harness.herald, event.eventId);
  expect(settled.status).toBe('ALL_DELIVERED');

  const mine = <T extends AttemptStartMessage>(messages: T[]) => messages.filter((message) => message.eventId === event.eventId);
  expect(mine(starts).map((message) => message.attempt)).toEqual([1, 2]);
  expect(mine(ends).map(({ attempt, outcome, httpStatus }) => ({ attempt, outcome, httpStatus }))).toEqual([
    { attempt: 1, outcome: 'PENDING', httpStatus: 503 },
    { attempt: 2, outcome: 'DELIVERED', httpStatus: 200 },
  ]);
  const [first] = mine(ends);
  expect(first).toMatchObject({ orgId: scope.orgId, eventType: 'card.issued', subscriberId: subscriber.id, probe: false });
  expect(first!.finishedAt.getTime()).toBeGreaterThanOrEqual(first!.startedAt.getTime());
  expect(JSON.stringify([...starts, ...ends])).not.toContain('4111111111111111');
});
