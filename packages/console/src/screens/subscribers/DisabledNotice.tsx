// A subscriber Herald disabled by itself (auto-disable: every delivery failed for longer than the
// host's limit). The detail screen explains it and says how to resume; the list marks it beside the
// enabled state. A subscriber disabled by hand has no reason and gets neither.
import type { SubscriberDisabledReason } from '../../api/types';
import { Time } from '../../ui/Time';

export function DisabledNotice({ reason }: { reason?: SubscriberDisabledReason }) {
  if (!reason) return null;
  return (
    <div class="notice notice-error" role="status" data-disabled-reason={reason.code}>
      <p class="notice-title">Disabled by Herald</p>
      <p>
        Herald disabled this subscriber <Time iso={reason.at} />: {reason.message}.
      </p>
      <p>Its pending deliveries ended as failed. Enable it to resume delivery, then recover the failed range below to send them again.</p>
    </div>
  );
}

export function DisabledBadge({ reason }: { reason?: SubscriberDisabledReason }) {
  if (!reason) return null;
  return (
    <span class="badge badge-bad" title={reason.message} data-disabled-reason={reason.code}>
      Auto-disabled
    </span>
  );
}
