// The engine's database edge, one part per concern: claims, outcomes, endpoint health, event
// counters, recovery and purging. Written for MongoDB's single-document atomicity; what FerretDB v1
// needs besides comes from the compatibility seam (storage/compat.ts) and nowhere else.
import type { Db } from 'mongodb';
import { collectionsFor, type Collections } from '../../storage/collections.js';
import type { StoreCompat } from '../../storage/compat.js';
import { ClaimStore } from './claims.js';
import { EngineCounters } from './counters.js';
import { HealthStore } from './health.js';
import { OutcomeStore } from './outcomes.js';
import { PurgeStore } from './purging.js';
import { RecoveryStore } from './recovery.js';

export type { Outcome } from './outcomes.js';

export class DeliveryStore {
  readonly collections: Collections;
  readonly counters: EngineCounters;
  readonly claims: ClaimStore;
  readonly outcomes: OutcomeStore;
  readonly health: HealthStore;
  readonly recovery: RecoveryStore;
  readonly purging: PurgeStore;
  readonly compat: StoreCompat;

  constructor(db: Db, prefix: string, compat: StoreCompat) {
    this.compat = compat;
    this.collections = collectionsFor(db, prefix);
    this.counters = new EngineCounters(this.collections, compat);
    this.claims = new ClaimStore(this.collections, compat, this.counters);
    this.outcomes = new OutcomeStore(this.collections, compat, this.counters);
    this.health = new HealthStore(this.collections, compat);
    this.recovery = new RecoveryStore(this.collections, compat, this.counters);
    this.purging = new PurgeStore(this.collections, compat);
  }

  /** The indexes only the engine's own queries use. */
  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.collections.queue.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'engine_due' }),
      this.collections.queue.createIndex({ status: 1, leaseUntil: 1 }, { name: 'engine_lease' }),
      this.compat.uniqueKeyClaims ? this.collections.claims.createIndex({ createdAt: 1 }, { name: 'engine_claims_age' }) : undefined,
      // Releasing the next row of a key (ordering/keys.ts) looks rows up by key and sequence.
      this.collections.queue.createIndex({ orderKey: 1, orderSeq: 1 }, { name: 'engine_order', sparse: true }),
    ]);
  }
}
