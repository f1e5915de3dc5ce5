// Herald disabling a subscriber that has failed for too long (the engine decides when:
// engine/auto-disable.ts, rules/auto-disable.ts). Written like any update — by revision, so a
// concurrent update is never written over — and only if the subscriber is still enabled and was
// not enabled again after the failures it is disabled for began. Its PENDING rows then end FAILED
// as for any disable, with a reason that says how to send them again.
import type { CoreContext } from '../context.js';
import { bumpSubscribersRevision } from '../model/subscriber-directory.js';
import { NotFoundError } from '../shared/errors.js';
import { SYSTEM_ACTOR } from './mapping.js';
import { CANCELLED_AUTO_DISABLED } from '../model/cancellation-reasons.js';
import { cancelInBackground } from './cancellation.js';
import { replaceByRevision } from './revision-write.js';

export interface AutoDisableRequest {
  subscriberId: string;
  /** Where the run of failures began, as the engine counted it. */
  failingFrom: Date;
  message: string;
  now: Date;
}

/** Whose subscriber was disabled; undefined when nothing was written (gone, already disabled, enabled again since). */
export type AutoDisabled = { orgId: string; handle: string } | undefined;

class NotDue extends Error {}

export async function autoDisableSubscriber(context: CoreContext, request: AutoDisableRequest): Promise<AutoDisabled> {
  const found = await context.collections.subscribers.findOne({ _id: request.subscriberId }, { projection: { handle: 1 } });
  if (!found) return undefined;
  const written = await replaceByRevision(context, request.subscriberId, found.handle, (current) => {
    const enabledSince = current.enabledSince?.getTime() ?? -Infinity;
    if (!current.enabled || current.listener || enabledSince > request.failingFrom.getTime()) throw new NotDue();
    return {
      ...current,
      enabled: false,
      disabledReason: { code: 'AUTO_DISABLED', message: request.message, at: request.now },
      updatedBy: SYSTEM_ACTOR,
      updatedAt: request.now,
      revision: (current.revision ?? 0) + 1,
    };
  }).catch((error: unknown) => {
    if (error instanceof NotDue || error instanceof NotFoundError) return undefined;
    throw error;
  });
  // Kept losing to other writers: the next check decides again from what they wrote.
  if (!written) return undefined;
  await bumpSubscribersRevision(context.collections, written.next.orgId);
  cancelInBackground(context, written.next._id, CANCELLED_AUTO_DISABLED, request.now);
  return { orgId: written.next.orgId, handle: written.next.handle };
}
