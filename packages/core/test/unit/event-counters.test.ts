// The pure side of event status: row transitions as counter changes, grouped into statements.
import { expect, test } from 'vitest';
import { countersFromRows, EventDeltas, rowDelta } from '../../src/model/event-counters.js';

const now = new Date('2030-01-01T00:00:00Z');

test('a row transition as a change of the open and failed counters', () => {
  expect(rowDelta('IN_FLIGHT', 'DELIVERED')).toEqual({ open: -1, failed: 0 });
  expect(rowDelta('IN_FLIGHT', 'FAILED')).toEqual({ open: -1, failed: 1 });
  expect(rowDelta('IN_FLIGHT', 'PENDING')).toEqual({ open: 0, failed: 0 });
  expect(rowDelta('FAILED', 'PENDING')).toEqual({ open: 1, failed: -1 });
  expect(rowDelta('DELIVERED', 'PENDING')).toEqual({ open: 1, failed: 0 });
});

test('deltas per event add up; events with the same change share one statement, then the status is settled', () => {
  const deltas = new EventDeltas();
  deltas.add('e1', rowDelta('IN_FLIGHT', 'DELIVERED'));
  deltas.add('e2', rowDelta('IN_FLIGHT', 'DELIVERED'));
  deltas.add('e3', rowDelta('IN_FLIGHT', 'FAILED'));
  deltas.add('e3', rowDelta('IN_FLIGHT', 'PENDING')); // no change: ignored
  const operations = deltas.operations(now);
  const increments = operations.slice(0, 2).map((operation) => 'updateMany' in operation && operation.updateMany);
  expect(increments).toEqual([
    { filter: { _id: { $in: ['e1', 'e2'] } }, update: { $inc: { openDeliveries: -1, failedDeliveries: 0 }, $set: { updatedAt: now } } },
    { filter: { _id: 'e3' }, update: { $inc: { openDeliveries: -1, failedDeliveries: 1 }, $set: { updatedAt: now } } },
  ]);
  // Nothing reopened: only the two settling statements follow (ALL_DELIVERED, FAILED).
  const settled = operations.slice(2).map((operation) => 'updateMany' in operation && (operation.updateMany.update as { $set: { status: string } }).$set.status);
  expect(settled).toEqual(['ALL_DELIVERED', 'FAILED']);
});

test('a redelivery reopens: the DISPATCHED statement is added', () => {
  const deltas = new EventDeltas();
  deltas.add('e1', rowDelta('FAILED', 'PENDING'));
  const statuses = deltas.operations(now).slice(1).map((operation) => 'updateMany' in operation && (operation.updateMany.update as { $set: { status: string } }).$set.status);
  expect(statuses).toEqual(['DISPATCHED', 'ALL_DELIVERED', 'FAILED']);
  expect(new EventDeltas().operations(now)).toEqual([]);
});

test('counters from rows: rows not written yet (fan-out in progress) count as open', () => {
  expect(countersFromRows(3, new Map([['DELIVERED', 2], ['FAILED', 1]]))).toEqual({ open: 0, failed: 1 });
  expect(countersFromRows(3, new Map([['DELIVERED', 1], ['PENDING', 1]]))).toEqual({ open: 2, failed: 0 });
  expect(countersFromRows(0, new Map())).toEqual({ open: 0, failed: 0 });
});
