// Per-key ordering (docs/ordering.md), the pure part: what a key is, which sequence numbers a
// publish batch's rows get and whether the first of them may go at once, and which rows a settle or
// a sweep releases. The store side is sequences.ts (publishers) and engine/store.ts (engines).
//
// The rule: of the queued rows of one key (one subscriber, one aggregateType + aggregateId), only
// the lowest-sequence one is ever claimable; the others are held (PENDING, `nextAttemptAt: null`,
// so the due-row poll never finds them). A row is released — given a due time — when the row
// before it settles (DELIVERED or FAILED), by whoever wrote that settle.
import type { DeliveryDocument } from '../storage/documents.js';

export interface OrderKeyParts {
  subscriberId: string;
  aggregateType: string;
  aggregateId: string;
}

/** JSON of the three parts: unambiguous whatever characters the ids hold, and parseable back. */
export function orderKeyOf(parts: OrderKeyParts): string {
  return JSON.stringify([parts.subscriberId, parts.aggregateType, parts.aggregateId]);
}

export function parseOrderKey(key: string): OrderKeyParts {
  const [subscriberId, aggregateType, aggregateId] = JSON.parse(key) as [string, string, string];
  return { subscriberId, aggregateType, aggregateId };
}

export const sequenceId = (key: string): string => `seq:${key}`;
export const doneId = (key: string): string => `done:${key}`;

/**
 * The rows of one key in a batch get `last - count + 1 … last` (last: the counter after adding
 * `count`), in the batch's order, which is the order the events were accepted. The first row may be
 * claimed at once only if every row before it has settled (`done`, the sequence of the last settled
 * row, is just below it); all others wait for their predecessor.
 */
export function planKey(count: number, last: number, done: number): { sequences: number[]; firstReleased: boolean } {
  const first = last - count + 1;
  return { sequences: Array.from({ length: count }, (_unused, index) => first + index), firstReleased: done >= first - 1 };
}

export type OrderedRow = Pick<DeliveryDocument, 'orderKey' | 'orderSeq'>;

/**
 * After ordered rows settled: each key's new `done` (the highest settled sequence) and the rows
 * that may go next (their successors, by sequence; a missing successor — a gap — is left to the
 * sweep).
 */
export function afterSettle(rows: readonly OrderedRow[]): { done: Map<string, number>; release: Array<{ orderKey: string; orderSeq: number }> } {
  const done = new Map<string, number>();
  for (const { orderKey, orderSeq } of rows) {
    if (orderKey === undefined || orderSeq === undefined) continue;
    done.set(orderKey, Math.max(done.get(orderKey) ?? 0, orderSeq));
  }
  return { done, release: [...done].map(([orderKey, orderSeq]) => ({ orderKey, orderSeq: orderSeq + 1 })) };
}

/**
 * A publish that took a sequence number may still be writing its row while a later number's row is
 * already stored: its writes end within the driver's socket timeout (60 s by default).
 */
export const GAP_GRACE_MS = 60_000;

/** The lowest held row of a key, as the sweep reads it. */
export interface LowestHeld {
  id: string;
  orderSeq: number;
  createdAt?: Date | undefined;
}

/**
 * The sweep's choice: for each key whose queued rows are all held (none claimable, none in flight,
 * none waiting on a retry), its lowest held row, once nothing before it can still come. That is at
 * once when the row before it settled (`done`, written before the release: a crash between the two),
 * and after GAP_GRACE_MS otherwise: the row before it was erased, or its number went to a publish
 * that never wrote its row (a gap) — or that is writing it still, which a release now would overtake.
 */
export function stalledHeads(heldLowest: ReadonlyMap<string, LowestHeld>, live: ReadonlySet<string>, done: ReadonlyMap<string, number>, now: Date): string[] {
  const gapsBefore = now.getTime() - GAP_GRACE_MS;
  return [...heldLowest]
    .filter(([key, row]) => !live.has(key) && ((done.get(key) ?? 0) >= row.orderSeq - 1 || (row.createdAt?.getTime() ?? 0) < gapsBefore))
    .map(([, row]) => row.id);
}

/** Lowest held row per key, from held rows in any order. */
export function lowestPerKey(rows: ReadonlyArray<{ _id: string; orderKey?: string | undefined; orderSeq?: number | undefined; createdAt?: Date | undefined }>): Map<string, LowestHeld> {
  const lowest = new Map<string, LowestHeld>();
  for (const row of rows) {
    if (row.orderKey === undefined || row.orderSeq === undefined) continue;
    const current = lowest.get(row.orderKey);
    if (!current || row.orderSeq < current.orderSeq) lowest.set(row.orderKey, { id: row._id, orderSeq: row.orderSeq, createdAt: row.createdAt });
  }
  return lowest;
}
