// Recovery of a subscriber's settled deliveries over a time range — the tool for an endpoint that
// was down while retries ran out. Asking records a recovery document and answers at once; the
// maintenance job then sends the matching rows back to PENDING a step at a time (at most
// RECOVERY_ROWS_PER_STEP per second), resuming from its cursor after a restart. Each row keeps its
// attempt numbers and starts a fresh retry budget (requeue.ts).
import { randomBytes } from 'node:crypto';
import type { CoreContext } from '../context.js';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../shared/errors.js';
import { RECOVERY_ROWS_PER_STEP, type Recovery, type RecoveryRequest } from '../schemas/index.js';
import { OPERATIONAL_EVENTS } from '../model/operational.js';
import type { RecoveryDocument } from '../storage/documents.js';
import { findByHandle } from '../subscribers/handle-index.js';
import { SYSTEM_ACTOR } from '../subscribers/mapping.js';
import type { Scope } from '../shared/scope.js';
import { requeueRows } from './requeue.js';

export interface RecoveryRange {
  since: Date;
  until: Date;
  statuses: Array<'FAILED' | 'DELIVERED'>;
}

/** Checks a request and fills its defaults (pure). */
export function recoveryRange(input: RecoveryRequest, now: Date): RecoveryRange {
  const issues: FieldIssue[] = [];
  const since = new Date(input.since);
  const until = input.until === undefined ? now : new Date(input.until);
  if (Number.isNaN(since.getTime())) issues.push({ field: 'since', message: 'must be a date-time' });
  if (Number.isNaN(until.getTime())) issues.push({ field: 'until', message: 'must be a date-time' });
  if (issues.length === 0 && since.getTime() >= until.getTime()) issues.push({ field: 'until', message: 'must be later than since' });
  const statuses = [...new Set<RecoveryRange['statuses'][number]>(input.statuses ?? ['FAILED'])];
  if (statuses.length === 0) issues.push({ field: 'statuses', message: 'must name at least one status' });
  if (issues.length > 0) throw new ValidationError(issues);
  return { since, until, statuses };
}

export function toRecovery(document: RecoveryDocument): Recovery {
  return {
    recoveryId: document._id,
    subscriberId: document.subscriberHandle,
    since: document.since.toISOString(),
    until: document.until.toISOString(),
    statuses: document.statuses,
    status: document.status,
    requeued: document.requeued,
    createdAt: document.createdAt.toISOString(),
    updatedAt: document.updatedAt.toISOString(),
    completedAt: document.completedAt?.toISOString() ?? null,
  };
}

export async function startRecovery(context: CoreContext, scope: Scope, handle: string, input: RecoveryRequest): Promise<Recovery> {
  const now = context.now();
  const range = recoveryRange(input, now);
  const subscriber = await context.compat.retry(() => findByHandle(context.collections, scope.orgId, handle));
  if (!subscriber) throw new NotFoundError(`webhook subscriber "${handle}" not found`);
  if (!subscriber.enabled) throw new ConflictError(`webhook subscriber "${handle}" is disabled: enable it before recovering its deliveries`);
  const document: RecoveryDocument = {
    _id: `rec_${randomBytes(8).toString('hex')}`,
    orgId: scope.orgId,
    subscriberId: subscriber._id,
    subscriberHandle: subscriber.handle,
    ...range,
    status: 'QUEUED',
    requeued: 0,
    cursor: null,
    createdBy: scope.actor ?? SYSTEM_ACTOR,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  await context.compat.write(() => context.collections.recoveries.insertOne(document));
  return toRecovery(document);
}

export async function getRecovery(context: CoreContext, scope: Scope, handle: string, recoveryId: string): Promise<Recovery> {
  const document = await context.compat.retry(() => context.collections.recoveries.findOne({ _id: recoveryId }));
  if (!document || document.orgId !== scope.orgId || document.subscriberHandle !== handle) throw new NotFoundError(`recovery "${recoveryId}" not found`);
  return toRecovery(document);
}

/**
 * One step of the oldest unfinished recovery: the next page of matching rows back to PENDING, the
 * cursor and count moved on. Idempotent if two replicas run it at once (a row already requeued is
 * no longer in the history). Returns the rows requeued.
 */
export async function stepRecoveries(context: CoreContext, limit = RECOVERY_ROWS_PER_STEP): Promise<number> {
  const { collections, compat } = context;
  const recovery = await compat.retry(() => collections.recoveries.find({ status: { $in: ['QUEUED', 'RUNNING'] } }).sort({ createdAt: 1 }).limit(1).next());
  if (!recovery) return 0;
  const after = recovery.cursor;
  const rows = await compat.retry(() =>
    collections.deliveries
      .find(
        {
          subscriberId: recovery.subscriberId,
          status: { $in: recovery.statuses },
          createdAt: { $gte: recovery.since, $lt: recovery.until },
          ...(after ? { $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after.id } }] } : {}),
        },
        { projection: { _id: 1, createdAt: 1 } },
      )
      .sort({ createdAt: 1, _id: 1 })
      .limit(limit)
      .toArray(),
  );
  const requeued = rows.length > 0 ? (await requeueRows(context, { _id: { $in: rows.map((row) => row._id) } })).length : 0;
  const now = context.now();
  const last = rows.at(-1);
  const done = rows.length < limit;
  await compat.write(() =>
    collections.recoveries.updateOne(
      { _id: recovery._id },
      {
        $set: {
          status: done ? 'COMPLETED' : 'RUNNING',
          updatedAt: now,
          completedAt: done ? now : null,
          ...(last ? { cursor: { createdAt: last.createdAt, id: last._id } } : {}),
        },
        $inc: { requeued },
      },
    ),
  );
  if (done) {
    const total = recovery.requeued + requeued;
    context.logger.info({ recoveryId: recovery._id, subscriber: recovery.subscriberHandle, requeued: total }, 'recovery completed');
    context.emit(recovery.orgId, { type: OPERATIONAL_EVENTS.recoveryCompleted, data: { recoveryId: recovery._id, subscriberId: recovery.subscriberHandle, requeued: total } }, recovery._id);
  }
  return requeued;
}
