// Why a row ended FAILED without an attempt. The service that disables or deletes a subscriber and
// the engine that later claims one of its rows must give the same reason, so it is decided here.
import type { SubscriberDocument } from '../storage/documents.js';

export const CANCELLED_DISABLED = 'Cancelled: the subscriber was disabled before this delivery was attempted';
export const CANCELLED_DELETED = 'Cancelled: the subscriber was deleted before this delivery was attempted';
export const CANCELLED_AUTO_DISABLED = 'Cancelled: the subscriber was auto-disabled after failing for too long; enable it and recover this range to send it again';

/** The reason for a subscriber as now stored (`undefined`: deleted). */
export function cancellationReason(subscriber: Pick<SubscriberDocument, 'disabledReason'> | undefined): string {
  if (!subscriber) return CANCELLED_DELETED;
  return subscriber.disabledReason?.code === 'AUTO_DISABLED' ? CANCELLED_AUTO_DISABLED : CANCELLED_DISABLED;
}
