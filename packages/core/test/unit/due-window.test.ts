// Due rows read ahead of the free slots (engine/due-window.ts), pure.
import { expect, test } from 'vitest';
import { DUE_EMPTY_READ_PAUSE_MS, DueWindow, emptyReadPause, LEFT_OVER_READ_SHARE } from '../../src/engine/due-window.js';
import { storeCompat } from '../../src/storage/compat.js';
import type { DeliveryDocument } from '../../src/storage/documents.js';

const row = (id: string, subscriberId: string, dueAt: number) => ({ _id: id, subscriberId, nextAttemptAt: new Date(dueAt) }) as DeliveryDocument;
const ids = (rows: readonly DeliveryDocument[]) => rows.map((held) => held._id);
const DUE_WINDOW_MAX_AGE_MS = 1_000;

test('rows read join those held oldest due first, once each; taken rows leave', () => {
  const window = new DueWindow(DUE_WINDOW_MAX_AGE_MS);
  window.add([row('a1', 'a', 10), row('a2', 'a', 30)], 0);
  window.add([row('b1', 'b', 20), row('a1', 'a', 10)], 5);
  expect(ids(window.rows(5))).toEqual(['a1', 'b1', 'a2']);
  window.remove([row('b1', 'b', 20)]);
  expect(ids(window.rows(6))).toEqual(['a1', 'a2']);
  window.clear();
  expect(window.rows(7)).toEqual([]);
});

test('held rows go once the window is older than its age, counted from the read that filled it', () => {
  const window = new DueWindow(DUE_WINDOW_MAX_AGE_MS);
  window.add([row('a1', 'a', 10)], 1_000);
  window.add([row('b1', 'b', 20)], 1_000 + DUE_WINDOW_MAX_AGE_MS - 1); // joins; does not make it younger
  expect(ids(window.rows(1_000 + DUE_WINDOW_MAX_AGE_MS - 1))).toEqual(['a1', 'b1']);
  expect(window.rows(1_000 + DUE_WINDOW_MAX_AGE_MS)).toEqual([]);
  window.add([row('c1', 'c', 30)], 5_000); // a fresh read starts a new window
  expect(ids(window.rows(5_000 + DUE_WINDOW_MAX_AGE_MS - 1))).toEqual(['c1']);
});

test('a read for left-over slots: always when nothing is held, else not again soon after one found nothing', () => {
  const window = new DueWindow(DUE_WINDOW_MAX_AGE_MS);
  expect(window.wantsRead(0, 0)).toBe(false); // every slot filled from the window
  expect(window.wantsRead(3, 0)).toBe(true);
  window.add([row('a1', 'a', 10)], 0);
  expect(window.wantsRead(3, 1)).toBe(true); // nothing said yet that the store has no more
  window.add([], 2);
  expect(window.wantsRead(3, 2 + DUE_EMPTY_READ_PAUSE_MS - 1)).toBe(false);
  expect(window.wantsRead(3, 2 + DUE_EMPTY_READ_PAUSE_MS)).toBe(true);
  window.clear();
  expect(window.wantsRead(3, 3)).toBe(true); // nothing held: read, paused or not
});

test('the subscribers a read for left-over slots leaves out: those of held rows not starting now', () => {
  const window = new DueWindow(DUE_WINDOW_MAX_AGE_MS);
  window.add([row('a1', 'a', 10), row('a2', 'a', 11), row('b1', 'b', 12)], 0);
  expect(window.heldSubscribers([row('b1', 'b', 12)]).sort()).toEqual(['a']);
  expect(window.heldSubscribers([]).sort()).toEqual(['a', 'b']);
});

test('reads that keep finding nothing pause longer, up to the window\'s age; one that finds rows ends the pause', () => {
  expect([0, 1, 2, 3, 4, 9].map((reads) => emptyReadPause(reads, DUE_WINDOW_MAX_AGE_MS))).toEqual([0, DUE_EMPTY_READ_PAUSE_MS, 2 * DUE_EMPTY_READ_PAUSE_MS, DUE_WINDOW_MAX_AGE_MS, DUE_WINDOW_MAX_AGE_MS, DUE_WINDOW_MAX_AGE_MS]);
  const window = new DueWindow(DUE_WINDOW_MAX_AGE_MS);
  window.add([row('a1', 'a', 10)], 0);
  window.add([], 0);
  window.add([], DUE_EMPTY_READ_PAUSE_MS);
  expect(window.wantsRead(1, DUE_EMPTY_READ_PAUSE_MS + 2 * DUE_EMPTY_READ_PAUSE_MS - 1)).toBe(false);
  expect(window.wantsRead(1, DUE_EMPTY_READ_PAUSE_MS + 2 * DUE_EMPTY_READ_PAUSE_MS)).toBe(true);
  window.add([row('b1', 'b', 20)], 800);
  window.add([], 801);
  expect(window.wantsRead(1, 801 + DUE_EMPTY_READ_PAUSE_MS)).toBe(true);
});

test('each store reads ahead as its due read costs: an index range stays small and fresh, a decoded queue is read whole and kept', () => {
  const indexed = storeCompat('mongodb').dueReadAhead;
  const decoded = storeCompat('ferretdb-v1').dueReadAhead;
  expect(indexed).toEqual({ rows: 500, maxAgeMs: 1_000 });
  expect(decoded.rows).toBeGreaterThanOrEqual(10 * indexed.rows);
  expect(decoded.maxAgeMs).toBeGreaterThanOrEqual(10 * indexed.maxAgeMs);
  // The window lasts as long as the store's read-ahead says, and so may the pause of reads that find nothing.
  const window = new DueWindow(decoded.maxAgeMs);
  window.add([row('a1', 'a', 10)], 0);
  expect(ids(window.rows(decoded.maxAgeMs - 1))).toEqual(['a1']);
  expect(window.rows(decoded.maxAgeMs)).toEqual([]);
  expect(emptyReadPause(20, decoded.maxAgeMs)).toBe(decoded.maxAgeMs);
});

test('while rows are held, reads for left-over slots take at most a quarter of the time: each rests three times as long as the last took', () => {
  expect(LEFT_OVER_READ_SHARE).toBe(0.25);
  const window = new DueWindow(10_000);
  window.add([row('a1', 'a', 10)], 0, 1_200); // a read of a decoded queue: 1.2 s
  expect(window.wantsRead(3, 1_200 + 3_600 - 1)).toBe(false);
  expect(window.wantsRead(3, 1_200 + 3_600)).toBe(true);
  window.add([row('b1', 'b', 20)], 5_000, 4); // an index range: 4 ms
  expect(window.wantsRead(3, 5_004 + 11)).toBe(false);
  expect(window.wantsRead(3, 5_004 + 12)).toBe(true);
  window.clear();
  window.add([], 6_000, 1_200); // nothing held: read now, however long the last read took
  expect(window.wantsRead(3, 7_200)).toBe(true);
});
