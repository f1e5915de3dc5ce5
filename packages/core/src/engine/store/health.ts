// Endpoint health as the engine shares it: a subscriber's breaker (engine/breaker.ts) is stored when
// it changes state, so other replicas, and this one after a restart, start from it.
import type { SubscriberHealthDocument } from '../../storage/documents.js';
import type { Breaker } from '../breaker.js';
import { StorePart } from './part.js';

export class HealthStore extends StorePart {
  /** Records a subscriber's health after a change of state (one small upsert by id). */
  async saveHealth(subscriberId: string, breaker: Breaker, now: Date): Promise<void> {
    const document: Omit<SubscriberHealthDocument, '_id'> = {
      state: breaker.state,
      since: new Date(breaker.since),
      failingSince: breaker.failingSince === null ? null : new Date(breaker.failingSince),
      consecutiveFailures: breaker.consecutiveFailures,
      lastError: breaker.lastError,
      probes: breaker.probes,
      nextProbeAt: breaker.nextProbeAt === null ? null : new Date(breaker.nextProbeAt),
      updatedAt: now,
    };
    await this.compat.write(() => this.collections.health.updateOne({ _id: subscriberId }, { $set: document }, { upsert: true }));
  }

  /** Health other engines (or this one before a restart) left not healthy. */
  async loadHealth(): Promise<Map<string, Breaker>> {
    const stored = await this.read(() => this.collections.health.find({ state: { $in: ['failing', 'open'] } }).toArray());
    return new Map(
      stored.map((document) => [
        document._id,
        {
          state: document.state,
          since: document.since.getTime(),
          consecutiveFailures: document.consecutiveFailures,
          failingSince: (document.failingSince ?? document.since).getTime(),
          lastError: document.lastError,
          probes: document.probes,
          nextProbeAt: document.nextProbeAt?.getTime() ?? null,
          ramp: null,
        },
      ]),
    );
  }

  /** Stored health that is not healthy and whose run of failures began at or before `cutoff`. */
  async failingSince(cutoff: Date): Promise<Array<{ subscriberId: string; state: 'failing' | 'open'; failingSince: Date; lastError: string | null }>> {
    const stored = await this.read(() => this.collections.health.find({ state: { $in: ['failing', 'open'] } }).toArray());
    return stored
      .map((document) => ({ subscriberId: document._id, state: document.state as 'failing' | 'open', failingSince: document.failingSince ?? document.since, lastError: document.lastError }))
      .filter((entry) => entry.failingSince.getTime() <= cutoff.getTime());
  }

  /** What auto-disable needs of a subscriber: whether it is enabled and when it was last enabled again. */
  async subscriberState(subscriberId: string): Promise<{ enabled: boolean; enabledSince: Date | null; listener: boolean } | null> {
    const found = await this.read(() => this.collections.subscribers.findOne({ _id: subscriberId }, { projection: { enabled: 1, enabledSince: 1, listener: 1 } }));
    return found ? { enabled: found.enabled, enabledSince: found.enabledSince ?? null, listener: found.listener !== undefined } : null;
  }

  /** The newest delivered attempt to the subscriber by any replica (a success its own breaker may not have seen). */
  async lastSuccessAt(subscriberId: string): Promise<Date | null> {
    const found = await this.read(() =>
      this.collections.deliveries.find({ subscriberId, status: 'DELIVERED' }).sort({ lastAttemptAt: -1, createdAt: -1 }).limit(1).project<{ lastAttemptAt: Date | null }>({ lastAttemptAt: 1 }).toArray(),
    );
    return found[0]?.lastAttemptAt ?? null;
  }

  /** Whose the subscriber is, for the operational event its change of state publishes. */
  async subscriberOrg(subscriberId: string): Promise<{ orgId: string; handle: string } | null> {
    return this.read(() => this.collections.subscribers.findOne({ _id: subscriberId }, { projection: { orgId: 1, handle: 1 } }));
  }
}
