// `herald webhooks events get` on a terminal: an event as a summary, a table of its deliveries and,
// per delivery, a table of its attempts. Pure; components.tsx draws it.
import { cellText, valueAtPath } from './cells.js';

export interface TableView {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export interface EventDetailView {
  readonly summary: readonly (readonly [string, string])[];
  readonly deliveries: TableView;
  /** One section per delivery that carries an attempt history (the single-event read does). */
  readonly attempts: readonly { readonly title: string; readonly table: TableView }[];
}

type Item = Readonly<Record<string, unknown>>;

function objects(value: unknown): Item[] {
  return Array.isArray(value) ? value.filter((entry): entry is Item => typeof entry === 'object' && entry !== null) : [];
}

export function formatDuration(milliseconds: unknown): string {
  if (typeof milliseconds !== 'number') return '-';
  if (milliseconds < 1000) return `${milliseconds} ms`;
  return `${Number((milliseconds / 1000).toFixed(2))} s`;
}

/** "2 (1 DELIVERED, 1 FAILED)": how many deliveries, by status in order of first appearance. */
function deliveryCounts(deliveries: readonly Item[]): string {
  if (deliveries.length === 0) return '0';
  const byStatus = new Map<string, number>();
  for (const delivery of deliveries) {
    const status = cellText(delivery.status);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  return `${deliveries.length} (${[...byStatus].map(([status, count]) => `${count} ${status}`).join(', ')})`;
}

/** An attempt records no status of its own: without an error class it got a 2xx answer. */
function attemptStatus(attempt: Item): string {
  return attempt.errorClass === null || attempt.errorClass === undefined ? 'OK' : 'FAILED';
}

export function eventDetailView(event: unknown): EventDetailView {
  const field = (path: string) => cellText(valueAtPath(event, path));
  const deliveries = objects(valueAtPath(event, 'deliveries'));
  // Rows of ordered subscribers carry `sequence`; the column is drawn only when one does.
  const ordered = deliveries.some((delivery) => typeof delivery.sequence === 'number');
  const aggregate = [valueAtPath(event, 'aggregateType'), valueAtPath(event, 'aggregateId')].filter((part) => part !== undefined && part !== null).map(cellText);
  return {
    summary: [
      ['Event', field('eventId')],
      ['Type', field('eventType')],
      ['Status', field('status')],
      ['Organization', field('orgId')],
      ['Aggregate', aggregate.length > 0 ? aggregate.join(' ') : '-'],
      ['Occurred', field('occurredAt')],
      ['Deliveries', deliveryCounts(deliveries)],
    ],
    deliveries: {
      headers: ['DELIVERY', 'SUBSCRIBER', ...(ordered ? ['SEQ'] : []), 'STATUS', 'ATTEMPTS', 'HTTP', 'LAST ATTEMPT', 'NEXT ATTEMPT', 'ERROR'],
      rows: deliveries.map((delivery) =>
        [
          delivery.deliveryId,
          delivery.subscriberId,
          ...(ordered ? [delivery.sequence] : []),
          delivery.status,
          delivery.attempts,
          delivery.lastHttpStatus,
          delivery.lastAttemptAt,
          delivery.nextAttemptAt,
          delivery.lastError,
        ].map(cellText),
      ),
    },
    attempts: deliveries
      .filter((delivery) => Array.isArray(delivery.attemptHistory))
      .map((delivery) => ({
        title: `Attempts of ${cellText(delivery.deliveryId)} (${cellText(delivery.subscriberId)})`,
        table: {
          headers: ['#', 'STATUS', 'HTTP', 'ERROR CLASS', 'DURATION', 'STARTED'],
          rows: objects(delivery.attemptHistory).map((attempt) => [
            cellText(attempt.attempt),
            attemptStatus(attempt),
            cellText(attempt.httpStatus),
            cellText(attempt.errorClass),
            formatDuration(attempt.durationMs),
            cellText(attempt.startedAt),
          ]),
        },
      })),
  };
}
