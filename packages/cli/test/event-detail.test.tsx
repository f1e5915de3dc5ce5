// `herald webhooks events get` on a terminal: the view model (pure) and its Ink drawing.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { eventDetailView, formatDuration } from '../src/ui/event-detail.js';
import { renderView } from '../src/ui/render.js';

const attempt = (attempt: number, httpStatus: number | null, errorClass: string | null, durationMs: number, startedAt: string) => ({
  attempt, startedAt, durationMs, httpStatus, errorClass, errorMessage: errorClass ? 'x' : null, responseBodySnippet: null,
});

const event = {
  eventId: 'e1', eventType: 'apikey.generated', orgId: 'acme', aggregateType: 'apikey', aggregateId: 'key-1', status: 'FAILED', occurredAt: '2025-01-01T00:00:00.000Z',
  deliveries: [
    {
      deliveryId: 'd1', subscriberId: 'billing', targetUrl: 'https://b/h', status: 'DELIVERED', lastHttpStatus: 200, lastError: null,
      lastAttemptAt: '2025-01-01T00:00:09.000Z', deliveredAt: '2025-01-01T00:00:09.000Z', attempts: 2, nextAttemptAt: null, encryptedFields: [], createdAt: '2025-01-01T00:00:00.000Z',
      attemptHistory: [attempt(1, null, 'CONNECTION_REFUSED', 3, '2025-01-01T00:00:01.000Z'), attempt(2, 200, null, 1250, '2025-01-01T00:00:09.000Z')],
    },
    {
      deliveryId: 'd2', subscriberId: 'audit', targetUrl: 'https://a/h', status: 'FAILED', lastHttpStatus: 410, lastError: 'HTTP 410: the receiver answered 410 Gone',
      lastAttemptAt: '2025-01-01T00:00:02.000Z', deliveredAt: null, attempts: 1, nextAttemptAt: null, encryptedFields: ['token'], createdAt: '2025-01-01T00:00:00.000Z',
      attemptHistory: [attempt(1, 410, 'HTTP_STATUS', 40, '2025-01-01T00:00:02.000Z')],
    },
  ],
};

describe('eventDetailView', () => {
  it('summarises the event, tabulates its deliveries and each delivery\'s attempts', () => {
    const view = eventDetailView(event);
    expect(view.summary).toStrictEqual([
      ['Event', 'e1'],
      ['Type', 'apikey.generated'],
      ['Status', 'FAILED'],
      ['Organization', 'acme'],
      ['Aggregate', 'apikey key-1'],
      ['Occurred', '2025-01-01T00:00:00.000Z'],
      ['Deliveries', '2 (1 DELIVERED, 1 FAILED)'],
    ]);
    expect(view.deliveries.headers).toStrictEqual(['DELIVERY', 'SUBSCRIBER', 'STATUS', 'ATTEMPTS', 'HTTP', 'LAST ATTEMPT', 'NEXT ATTEMPT', 'ERROR']);
    expect(view.deliveries.rows).toStrictEqual([
      ['d1', 'billing', 'DELIVERED', '2', '200', '2025-01-01T00:00:09.000Z', '-', '-'],
      ['d2', 'audit', 'FAILED', '1', '410', '2025-01-01T00:00:02.000Z', '-', 'HTTP 410: the receiver answered 410 Gone'],
    ]);
    expect(view.attempts.map((section) => section.title)).toStrictEqual(['Attempts of d1 (billing)', 'Attempts of d2 (audit)']);
    expect(view.attempts[0]?.table.headers).toStrictEqual(['#', 'STATUS', 'HTTP', 'ERROR CLASS', 'DURATION', 'STARTED']);
    expect(view.attempts[0]?.table.rows).toStrictEqual([
      ['1', 'FAILED', '-', 'CONNECTION_REFUSED', '3 ms', '2025-01-01T00:00:01.000Z'],
      ['2', 'OK', '200', '-', '1.25 s', '2025-01-01T00:00:09.000Z'],
    ]);
    expect(view.attempts[1]?.table.rows).toStrictEqual([['1', 'FAILED', '410', 'HTTP_STATUS', '40 ms', '2025-01-01T00:00:02.000Z']]);
  });

  it('copes with an event without attempt history (the publish answer) and with no deliveries', () => {
    const summary = { ...event, deliveries: [{ deliveryId: 'd1', subscriberId: 'billing', status: 'PENDING', lastHttpStatus: null, lastError: null, lastAttemptAt: null }] };
    const view = eventDetailView(summary);
    expect(view.deliveries.rows).toStrictEqual([['d1', 'billing', 'PENDING', '-', '-', '-', '-', '-']]);
    expect(view.attempts).toStrictEqual([]);
    const none = eventDetailView({ ...event, deliveries: [] });
    expect(none.summary.at(-1)).toStrictEqual(['Deliveries', '0']);
    expect(none.deliveries.rows).toStrictEqual([]);
    expect(eventDetailView({ eventId: 'e9' }).summary[0]).toStrictEqual(['Event', 'e9']);
  });

  it('adds a SEQ column after SUBSCRIBER only when a delivery carries a sequence (an ordered subscriber\'s row)', () => {
    const [first, second] = event.deliveries;
    const view = eventDetailView({ ...event, deliveries: [{ ...first, sequence: 3 }, second] });
    expect(view.deliveries.headers).toStrictEqual(['DELIVERY', 'SUBSCRIBER', 'SEQ', 'STATUS', 'ATTEMPTS', 'HTTP', 'LAST ATTEMPT', 'NEXT ATTEMPT', 'ERROR']);
    expect(view.deliveries.rows.map((row) => row.slice(0, 4))).toStrictEqual([
      ['d1', 'billing', '3', 'DELIVERED'],
      ['d2', 'audit', '-', 'FAILED'],
    ]);
  });

  it('formats durations', () => {
    expect([0, 999, 1000, 1250, 61_000].map(formatDuration)).toStrictEqual(['0 ms', '999 ms', '1 s', '1.25 s', '61 s']);
    expect(formatDuration(null)).toBe('-');
  });
});

describe('renderView of an event', () => {
  it('draws the summary, the deliveries table and an attempts table per delivery', async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    Object.assign(stream, { columns: 160, rows: 60, isTTY: true });
    await renderView(event, { kind: 'event' }, stream);
    // eslint-disable-next-line no-control-regex -- stripping ANSI escape sequences from terminal output
    const lines = Buffer.concat(chunks).toString('utf8').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n').map((line) => line.trimEnd());
    expect(lines).toContain('Event         e1');
    expect(lines).toContain('Deliveries    2 (1 DELIVERED, 1 FAILED)');
    expect(lines.some((line) => /^DELIVERY\s+SUBSCRIBER\s+STATUS\s+ATTEMPTS\s+HTTP\s+LAST ATTEMPT\s+NEXT ATTEMPT\s+ERROR$/.test(line))).toBe(true);
    expect(lines.some((line) => /^d2\s+audit\s+FAILED\s+1\s+410\s+/.test(line))).toBe(true);
    expect(lines).toContain('Attempts of d1 (billing)');
    expect(lines.some((line) => /^#\s+STATUS\s+HTTP\s+ERROR CLASS\s+DURATION\s+STARTED$/.test(line))).toBe(true);
    expect(lines.some((line) => /^2\s+OK\s+200\s+-\s+1\.25 s\s+2025-01-01T00:00:09\.000Z$/.test(line))).toBe(true);
  });
});
