// "2 delivered, 1 failed" for an event's delivery rows (pure).
import type { DeliveryStatus } from '../../api/types';

const ORDER: DeliveryStatus[] = ['DELIVERED', 'FAILED', 'IN_FLIGHT', 'PENDING'];
const WORDS: Record<DeliveryStatus, string> = { DELIVERED: 'delivered', FAILED: 'failed', IN_FLIGHT: 'in flight', PENDING: 'pending' };

export function deliverySummary(rows: readonly { status: DeliveryStatus }[]): string {
  if (rows.length === 0) return 'no matching subscriber';
  const counts = new Map<DeliveryStatus, number>();
  for (const row of rows) counts.set(row.status, (counts.get(row.status) ?? 0) + 1);
  return ORDER.filter((status) => counts.has(status))
    .map((status) => `${counts.get(status)} ${WORDS[status]}`)
    .join(', ');
}
