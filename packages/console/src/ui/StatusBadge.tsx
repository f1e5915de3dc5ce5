// A status as a word with a colour: the word carries the meaning, the colour only helps scanning.
import type { DeliveryStatus, EventStatus } from '../api/types';

const LABELS: Record<EventStatus | DeliveryStatus, string> = {
  PENDING: 'Pending',
  DISPATCHED: 'Dispatched',
  ALL_DELIVERED: 'All delivered',
  IN_FLIGHT: 'In flight',
  DELIVERED: 'Delivered',
  FAILED: 'Failed',
};

const TONES: Record<EventStatus | DeliveryStatus, string> = {
  PENDING: 'wait',
  DISPATCHED: 'wait',
  IN_FLIGHT: 'wait',
  ALL_DELIVERED: 'good',
  DELIVERED: 'good',
  FAILED: 'bad',
};

export function statusLabel(status: EventStatus | DeliveryStatus): string {
  return LABELS[status];
}

export function StatusBadge({ status }: { status: EventStatus | DeliveryStatus }) {
  return (
    <span class={`badge badge-${TONES[status]}`} data-status={status}>
      {LABELS[status]}
    </span>
  );
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span class={`badge ${enabled ? 'badge-good' : 'badge-off'}`}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}
