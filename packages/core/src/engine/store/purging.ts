// What the engine removes: settled events past their retention (with their rows and attempts), and
// the short-lived documents of the FerretDB path (claims, sequence markers, write turns).
import type { StoredRetention } from '../../rules/retention-policy.js';
import type { RetentionGroup } from '../../rules/retention-windows.js';
import { StorePart } from './part.js';

export class PurgeStore extends StorePart {
  /**
   * Deletes finished events older than the cutoff, with their rows and attempts: three round trips
   * in series (the `status_created` index finds them; the children's `eventId` indexes delete them).
   * Children first, side by side, then the events: an interrupted step leaves no orphans, only
   * events it deletes next time.
   */
  async purgeFinishedBefore(cutoff: Date, limit = 1_000, match: RetentionGroup['match'] | Record<string, never> = {}): Promise<number> {
    const old = await this.read(() =>
      this.collections.events.find({ status: { $in: ['ALL_DELIVERED', 'FAILED'] }, createdAt: { $lt: cutoff }, ...match }, { projection: { _id: 1 } }).limit(limit).toArray(),
    );
    if (old.length === 0) return 0;
    const ids = old.map((event) => event._id);
    await Promise.all([
      this.write(() => this.collections.attempts.deleteMany({ eventId: { $in: ids } })),
      this.write(() => this.collections.queue.deleteMany({ eventId: { $in: ids } })),
      this.write(() => this.collections.deliveries.deleteMany({ eventId: { $in: ids } })),
    ]);
    const result = await this.write(() => this.collections.events.deleteMany({ _id: { $in: ids }, status: { $in: ['ALL_DELIVERED', 'FAILED'] } }));
    return result.deletedCount;
  }

  /** The organizations that set a retention policy of their own, with it. */
  async orgRetentionPolicies(): Promise<Map<string, StoredRetention>> {
    const states = await this.read(() => this.collections.orgState.find({ retention: { $exists: true } }, { projection: { retention: 1 } }).toArray());
    return new Map(states.flatMap((state) => (state.retention ? [[state._id, state.retention] as const] : [])));
  }

  /** Claims only matter while a reader may still hold the incarnation they name. */
  async purgeClaimsBefore(cutoff: Date): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    return (await this.write(() => this.collections.claims.deleteMany({ createdAt: { $lt: cutoff } }))).deletedCount;
  }

  /**
   * Sequence markers (ordering/sequences.ts) and write turns (storage/write-turns.ts), FerretDB v1
   * only, matter for a moment after they are taken.
   */
  async purgeSequenceMarkersBefore(cutoff: Date): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    const [markers, turns] = await Promise.all([
      this.write(() => this.collections.orderMarkers.deleteMany({ createdAt: { $lt: cutoff } })),
      this.write(() => this.collections.writeTurns.deleteMany({ createdAt: { $lt: cutoff } })),
    ]);
    return markers.deletedCount + turns.deletedCount;
  }
}
