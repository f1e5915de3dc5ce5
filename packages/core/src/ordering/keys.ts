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
 * The sweep's choice: for each key whose queued rows are all held (none claimable, none in flight,
 * none waiting on a retry), its lowest held row. This is what frees a key after a crash between a
 * settle and its release, after a sequence number was handed out to a publish that never wrote its
 * row (a gap), or after the key's head was erased.
 */
export function stalledHeads(heldLowest: ReadonlyMap<string, { id: string; orderSeq: number }>, live: ReadonlySet<string>): string[] {
  return [...heldLowest].filter(([key]) => !live.has(key)).map(([, row]) => row.id);
}

/** Lowest held row per key, from held rows in any order. */
export function lowestPerKey(rows: ReadonlyArray<{ _id: string; orderKey?: string | undefined; orderSeq?: number | undefined }>): Map<string, { id: string; orderSeq: number }> {
  const lowest = new Map<string, { id: string; orderSeq: number }>();
  for (const row of rows) {
    if (row.orderKey === undefined || row.orderSeq === undefined) continue;
    const current = lowest.get(row.orderKey);
    if (!current || row.orderSeq < current.orderSeq) lowest.set(row.orderKey, { id: row._id, orderSeq: row.orderSeq });
  }
  return lowest;
}
