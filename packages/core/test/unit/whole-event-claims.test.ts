// Which claimed rows may be written by their event's equality: only all of an event's rows, in one
// incarnation, when the event's row count is known; and where a choice cut by its count stops so
// that it ends on an event's last row (engine/store/whole-event-claims.ts).
import { describe, expect, test } from 'vitest';
import { wholeEventLimit, wholeEvents } from '../../src/engine/store/whole-event-claims.js';

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

describe('a choice cut by its count ends on an event\'s last row', () => {
  // Three events of three rows each, in due order.
  const known = ['a', 'b', 'c'].flatMap((eventId) => [1, 2, 3].map((n) => row(`${eventId}${n}`, eventId)));

  test('the cut event is left for the next choice', () => {
    expect(wholeEventLimit(known.slice(0, 5), known, 5)).toBe(3); // a1–a3, then b1 b2 of b's three
    expect(wholeEventLimit(known.slice(0, 6), known, 6)).toBe(6); // ends on b3
  });

  test('a choice not filled by its count, or of one event only, is left as it is', () => {
    expect(wholeEventLimit(known.slice(0, 5), known, 8)).toBe(8); // the allowances stopped it
    expect(wholeEventLimit(known.slice(0, 2), known, 2)).toBe(2);
    expect(wholeEventLimit([], known, 4)).toBe(4);
  });

  test('rows of the last event elsewhere in the choice, or in another incarnation, leave it as it is', () => {
    const interleaved = [known[3]!, known[0]!, known[1]!, known[2]!, known[4]!];
    expect(wholeEventLimit(interleaved, known, 5)).toBe(5);
    const retried = [row('a1', 'a'), row('a2', 'a'), row('b1', 'b'), row('b2', 'b', 1)];
    expect(wholeEventLimit(retried.slice(0, 3), retried, 3)).toBe(3); // b's other row is not due with b1
  });
});
