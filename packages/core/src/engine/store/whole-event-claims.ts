// Where a claim writes one statement per row (storage/compat.ts `pointReads`: FerretDB v1 runs each
// statement as a transaction of its own), the rows of one event can be claimed by one statement on
// the event's index, `{eventId}` in the incarnation read. That is safe only when the claimer holds
// every row the event can have queued: the queue keeps at most one row per event and subscriber of
// the event's plan, so `deliveryCount` rows of it are all of them, and their incarnations are the
// ones this claimer just won (storage/claims.ts), so no other row can match and no other writer
// changes these meanwhile. Any other row is claimed by its `_id`, as before.
import type { DeliveryDocument } from '../../storage/documents.js';

type ClaimableRow = Pick<DeliveryDocument, '_id' | 'eventId' | 'attempts' | 'nextAttemptAt'>;

/** Every queued row of one event, all in the same incarnation. */
export interface WholeEvent<T extends ClaimableRow> {
  eventId: string;
  attempts: number;
  nextAttemptAt: Date;
  rows: T[];
}

/**
 * Splits rows to claim into whole events and single rows. `rowsPlanned` gives an event's
 * `deliveryCount`, or undefined when the claimer does not know it (those rows stay single).
 */
export function wholeEvents<T extends ClaimableRow>(rows: readonly T[], rowsPlanned: (eventId: string) => number | undefined): { whole: WholeEvent<T>[]; single: T[] } {
  const byEvent = new Map<string, T[]>();
  for (const row of rows) {
    const list = byEvent.get(row.eventId);
    if (list) list.push(row);
    else byEvent.set(row.eventId, [row]);
  }
  const whole: WholeEvent<T>[] = [];
  const single: T[] = [];
  for (const [eventId, list] of byEvent) {
    const first = list[0]!;
    const due = first.nextAttemptAt;
    const sameIncarnation = due !== null && list.every((row) => row.attempts === first.attempts && row.nextAttemptAt?.getTime() === due.getTime());
    // One row is cheaper by `_id` (a unique index) than by its event.
    if (list.length > 1 && sameIncarnation && new Set(list.map((row) => row._id)).size === list.length && rowsPlanned(eventId) === list.length) {
      whole.push({ eventId, attempts: first.attempts, nextAttemptAt: due, rows: list });
    } else {
      single.push(...list);
    }
  }
  return { whole, single };
}

/**
 * How many rows to choose so that a choice filled by its count ends on an event's last row: when
 * the last rows of `planned` (the choice `free` slots would make, in order) are part of an event
 * whose other due rows `known` holds, the choice stops before them and the next one starts with
 * the whole event. Otherwise `free`. A choice of one event's rows only is left as it is.
 */
export function wholeEventLimit(planned: readonly ClaimableRow[], known: readonly ClaimableRow[], free: number): number {
  if (planned.length < free || planned.length === 0) return free;
  const last = planned[planned.length - 1]!;
  let tail = 0;
  while (tail < planned.length && planned[planned.length - 1 - tail]!.eventId === last.eventId) tail += 1;
  if (tail === planned.length) return free;
  if (planned.some((row, index) => index < planned.length - tail && row.eventId === last.eventId)) return free;
  const due = known.filter((row) => row.eventId === last.eventId && row.attempts === last.attempts && row.nextAttemptAt?.getTime() === last.nextAttemptAt?.getTime()).length;
  return due > tail ? planned.length - tail : free;
}
