// Which claimed rows may be written by their event's equality: only all of an event's rows, in one
// incarnation, when the event's row count is known (engine/store/whole-event-claims.ts).
import { expect, test } from 'vitest';
import { wholeEvents } from '../../src/engine/store/whole-event-claims.js';

const due = new Date(Date.UTC(2032, 0, 1));
const row = (id: string, eventId: string, attempts = 0, nextAttemptAt: Date | null = due) => ({ _id: id, eventId, attempts, nextAttemptAt });

test('an event whose every planned row is here, in one incarnation, is claimed whole', () => {
  const rows = [row('a1', 'a'), row('b1', 'b'), row('a2', 'a'), row('a3', 'a')];
  const { whole, single } = wholeEvents(rows, (eventId) => ({ a: 3, b: 1 })[eventId]);
  expect(whole).toEqual([{ eventId: 'a', attempts: 0, nextAttemptAt: due, rows: [rows[0], rows[2], rows[3]] }]);
  expect(single).toEqual([rows[1]]); // one row: cheaper by its `_id`
});

test('an event with rows elsewhere, or of unknown size, stays row by row', () => {
  const rows = [row('a1', 'a'), row('a2', 'a'), row('c1', 'c'), row('c2', 'c')];
  const { whole, single } = wholeEvents(rows, (eventId) => ({ a: 3 })[eventId]);
  expect(whole).toEqual([]);
  expect(single.map((r) => r._id)).toEqual(['a1', 'a2', 'c1', 'c2']);
});

test('rows of one event in different incarnations, or held with no due time, stay row by row', () => {
  const later = new Date(due.getTime() + 1);
  expect(wholeEvents([row('a1', 'a'), row('a2', 'a', 1)], () => 2).whole).toEqual([]);
  expect(wholeEvents([row('a1', 'a'), row('a2', 'a', 0, later)], () => 2).whole).toEqual([]);
  expect(wholeEvents([row('a1', 'a', 0, null), row('a2', 'a', 0, null)], () => 2).whole).toEqual([]);
});

test('the same row twice does not make an event whole', () => {
  const { whole, single } = wholeEvents([row('a1', 'a'), row('a1', 'a')], () => 2);
  expect(whole).toEqual([]);
  expect(single).toHaveLength(2);
});
