// Replicas polling one queue read the same oldest due rows; choosing oldest first, each would claim
// the same rows, one would win them all and the others would win nothing, read again and meet the
// same rows — so several replicas would drain a backlog no faster than one. Once a claim has lost
// rows to another claimer, this engine starts its choice at a random point of the due rows it
// knows for a while, so replicas mostly claim different rows. An engine whose claims lose nothing
// keeps strict due order. Pure: the caller gives the time and the random source.
import type { Random } from './backoff.js';

/** How long after a lost claim choices are spread. */
export const SPREAD_FOR_MS = 10_000;

export class ClaimContention {
  private spreadUntil = 0;

  /** A claim won fewer rows than it chose: another claimer works the same rows. */
  lost(now: number): void {
    this.spreadUntil = now + SPREAD_FOR_MS;
  }

  /** The rows to choose from, in the order to choose them: rotated to a random start while contended. */
  order<T>(rows: readonly T[], free: number, now: number, random: Random): readonly T[] {
    if (now >= this.spreadUntil || rows.length <= free) return rows;
    const start = Math.floor(random() * rows.length);
    return [...rows.slice(start), ...rows.slice(0, start)];
  }
}
