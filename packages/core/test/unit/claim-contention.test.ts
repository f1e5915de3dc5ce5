// Spreading claims once another claimer works the same rows (engine/claim-contention.ts), pure.
import { expect, test } from 'vitest';
import { ClaimContention, SPREAD_FOR_MS } from '../../src/engine/claim-contention.js';

const rows = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];

test('alone on its queue an engine chooses in due order', () => {
  const contention = new ClaimContention();
  expect(contention.order(rows, 2, 1_000, () => 0.5)).toEqual(rows);
});

test('after a lost claim the choice starts at a random row, every row kept once, for a while', () => {
  const contention = new ClaimContention();
  contention.lost(1_000);
  const spread = contention.order(rows, 2, 1_001, () => 0.5);
  expect(spread).toEqual(['r4', 'r5', 'r6', 'r7', 'r0', 'r1', 'r2', 'r3']);
  expect(contention.order(rows, 2, 1_000 + SPREAD_FOR_MS - 1, () => 0.99)[0]).toBe('r7');
  expect(contention.order(rows, 2, 1_000 + SPREAD_FOR_MS, () => 0.5)).toEqual(rows);
});

test('when every known row fits the free slots there is nothing to spread', () => {
  const contention = new ClaimContention();
  contention.lost(0);
  expect(contention.order(rows, rows.length, 1, () => 0.5)).toEqual(rows);
});
