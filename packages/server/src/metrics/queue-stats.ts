// Delivery queue figures read from MongoDB at scrape time: they describe the whole cluster (every
// replica's rows), which per-process engine counters cannot.
import type { Db } from 'mongodb';

export interface QueueStats {
  byStatus: Record<'PENDING' | 'IN_FLIGHT' | 'DELIVERED' | 'FAILED', number>;
  /** Due PENDING rows (nextAttemptAt ≤ now): the backlog the workers have not picked up yet. */
  due: number;
  /** Age in seconds of the oldest due PENDING row; 0 when none is due. */
  oldestDueAgeSeconds: number;
  /** Subscribers whose endpoint health is not healthy (core's breaker), by state. */
  unhealthySubscribers: Record<'failing' | 'open', number>;
}

const STATUSES = ['PENDING', 'IN_FLIGHT', 'DELIVERED', 'FAILED'] as const;

export async function readQueueStats(db: Db, collectionPrefix = 'herald_', now = new Date()): Promise<QueueStats> {
  // Core keeps PENDING and IN_FLIGHT rows in the delivery queue, settled ones in the history.
  const queue = db.collection<{ status: string; nextAttemptAt?: Date | null }>(`${collectionPrefix}delivery_queue`);
  const history = db.collection<{ status: string }>(`${collectionPrefix}deliveries`);
  const health = db.collection<{ state: string }>(`${collectionPrefix}subscriber_health`);
  const dueFilter = { status: 'PENDING', nextAttemptAt: { $lte: now } };
  const [counts, due, oldest, failing, open] = await Promise.all([
    Promise.all(STATUSES.map((status) => (status === 'PENDING' || status === 'IN_FLIGHT' ? queue : history).countDocuments({ status }))),
    queue.countDocuments(dueFilter),
    queue.find(dueFilter, { projection: { nextAttemptAt: 1 } }).sort({ nextAttemptAt: 1 }).limit(1).next(),
    health.countDocuments({ state: 'failing' }),
    health.countDocuments({ state: 'open' }),
  ]);
  const byStatus = Object.fromEntries(STATUSES.map((status, index) => [status, counts[index] ?? 0])) as QueueStats['byStatus'];
  const oldestDue = oldest?.nextAttemptAt instanceof Date ? oldest.nextAttemptAt.getTime() : undefined;
  return {
    byStatus,
    due,
    oldestDueAgeSeconds: oldestDue === undefined ? 0 : Math.max(0, (now.getTime() - oldestDue) / 1000),
    unhealthySubscribers: { failing, open },
  };
}

/** Longest possible attempt (timeoutMs ≤ 30 s) plus margin: attempts finishing after `since` started after this. */
const ATTEMPT_LOOKBACK_MS = 60_000;
const RECENT_ATTEMPTS_SCAN_LIMIT = 5_000;

/**
 * Durations (seconds) of delivery attempts that finished in (since, now], read from the attempt
 * records — core's engine counts attempts but does not report their latency.
 */
export async function readAttemptDurationsBetween(db: Db, since: Date, now = new Date(), collectionPrefix = 'herald_'): Promise<number[]> {
  const attempts = db.collection<{ startedAt: Date; durationMs: number }>(`${collectionPrefix}delivery_attempts`);
  const recent = await attempts
    .find({ startedAt: { $gt: new Date(since.getTime() - ATTEMPT_LOOKBACK_MS) } }, { projection: { startedAt: 1, durationMs: 1 } })
    .limit(RECENT_ATTEMPTS_SCAN_LIMIT)
    .toArray();
  const durations: number[] = [];
  for (const attempt of recent) {
    if (!(attempt.startedAt instanceof Date)) continue;
    const finishedAt = attempt.startedAt.getTime() + attempt.durationMs;
    if (finishedAt > since.getTime() && finishedAt <= now.getTime()) durations.push(attempt.durationMs / 1000);
  }
  return durations;
}
