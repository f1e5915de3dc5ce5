// Delivery figures of this engine process for the host's metrics: attempts per subscriber by
// outcome (its success rate), and how long a delivery waited from publish to the end of its first
// attempt. Counters only ever grow, so a scraper computes rates and quantiles over any window.

/** Upper bounds (seconds) of the first-attempt latency buckets; the last bucket is +Inf. */
export const FIRST_ATTEMPT_BOUNDS_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface SubscriberFigures {
  orgId: string;
  subscriber: string;
  delivered: number;
  failed: number;
  retried: number;
}

export interface LatencyHistogram {
  bounds: readonly number[];
  /** Observations ≤ each bound (cumulative, Prometheus style). */
  cumulative: number[];
  sum: number;
  count: number;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'retried';

export class DeliveryStats {
  private readonly subscribers = new Map<string, SubscriberFigures>();
  private readonly firstAttempt: LatencyHistogram = {
    bounds: FIRST_ATTEMPT_BOUNDS_SECONDS,
    cumulative: FIRST_ATTEMPT_BOUNDS_SECONDS.map(() => 0),
    sum: 0,
    count: 0,
  };

  record(row: { orgId: string; subscriberHandle: string; attempts: number; createdAt: Date }, outcome: AttemptOutcome, finishedAt: Date): void {
    const key = `${row.orgId}\u0000${row.subscriberHandle}`;
    const figures = this.subscribers.get(key) ?? { orgId: row.orgId, subscriber: row.subscriberHandle, delivered: 0, failed: 0, retried: 0 };
    figures[outcome] += 1;
    this.subscribers.set(key, figures);
    if (row.attempts !== 0) return;
    const seconds = Math.max(0, (finishedAt.getTime() - row.createdAt.getTime()) / 1000);
    this.firstAttempt.bounds.forEach((bound, index) => {
      if (seconds <= bound) this.firstAttempt.cumulative[index]! += 1;
    });
    this.firstAttempt.sum += seconds;
    this.firstAttempt.count += 1;
  }

  bySubscriber(): SubscriberFigures[] {
    return [...this.subscribers.values()].map((figures) => ({ ...figures }));
  }

  firstAttemptLatency(): LatencyHistogram {
    return { ...this.firstAttempt, cumulative: [...this.firstAttempt.cumulative] };
  }
}
