// Per-key sequence numbers in the delivery views (docs/ordering.md): a row of an ordered subscriber
// shows the `sequence` its delivered body carried — on the publish answer, the event list and detail,
// the subscriber's deliveries and a retry's answer — and a row of an unordered subscriber has no
// such field. Every response is also checked against the served OpenAPI document (api-client.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const EVENTS = '/api/v0.9/webhook-events';
const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';

interface Delivery {
  deliveryId: string;
  subscriberId: string;
  status: string;
  sequence?: number;
}
interface WebhookEvent {
  eventId: string;
  aggregateId: string;
  status: string;
  deliveries: Delivery[];
}

let t: TestHost;
let sink: Server;
/** What the sink received, per subscriber path: the body's event id and `sequence`. */
const received = new Map<string, Array<{ id: string; sequence: unknown }>>();

beforeAll(async () => {
  sink = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; sequence?: number };
      const path = request.url ?? '';
      received.set(path, [...(received.get(path) ?? []), { id: body.id, sequence: body.sequence }]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  t = await startTestHost();
  for (const [id, ordering] of [
    ['seq-ordered', 'aggregate'],
    ['seq-plain', 'none'],
  ] as const) {
    const created = await t.api.post(SUBSCRIBERS, { id, displayName: id, targetUrl: `${base}/${id}`, events: ['shipment.*'], ordering });
    expect(created.status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => sink?.close(resolve));
});

const rowOf = (event: WebhookEvent, subscriberId: string) => event.deliveries.find((row) => row.subscriberId === subscriberId)!;

describe('sequence in the delivery views', () => {
  const events: WebhookEvent[] = [];

  it('the publish answer numbers the ordered rows of one key 1, 2, 3 and another key from 1; unordered rows have no sequence', async () => {
    // One after the other (each sent after the previous was answered): acceptance order is publish order.
    for (const aggregateId of ['s-1', 's-1', 's-2', 's-1']) {
      const published = await t.api.post<WebhookEvent>(EVENTS, { eventType: 'shipment.moved', aggregateType: 'shipment', aggregateId, data: {} });
      expect(published.status).toBe(201);
      events.push(published.body);
    }
    expect(events.map((event) => rowOf(event, 'seq-ordered').sequence)).toStrictEqual([1, 2, 1, 3]);
    for (const event of events) expect(rowOf(event, 'seq-plain')).not.toHaveProperty('sequence');
  });

  it('once delivered, the event detail and list show the number the delivered body carried', async () => {
    for (const event of events) {
      await expect
        .poll(async () => (await t.api.get<WebhookEvent>(`${EVENTS}/${event.eventId}`)).body.status, { timeout: 20_000, interval: 100 })
        .toBe('ALL_DELIVERED');
    }
    const sent = new Map((received.get('/seq-ordered') ?? []).map((body) => [body.id, body.sequence]));
    for (const [index, event] of events.entries()) {
      const detail = (await t.api.get<WebhookEvent>(`${EVENTS}/${event.eventId}`)).body;
      const ordered = rowOf(detail, 'seq-ordered');
      expect(ordered).toMatchObject({ status: 'DELIVERED', sequence: [1, 2, 1, 3][index] });
      expect(sent.get(event.eventId)).toBe(ordered.sequence);
      expect(rowOf(detail, 'seq-plain')).toMatchObject({ status: 'DELIVERED' });
      expect(rowOf(detail, 'seq-plain')).not.toHaveProperty('sequence');
    }
    // The unordered subscriber's bodies carry no sequence either.
    expect((received.get('/seq-plain') ?? []).map((body) => body.sequence)).toStrictEqual([undefined, undefined, undefined, undefined]);

    const page = (await t.api.get<{ list: WebhookEvent[] }>(`${EVENTS}?limit=100`)).body.list;
    const listed = events.map((event) => page.find((item) => item.eventId === event.eventId)!);
    expect(listed.map((event) => rowOf(event, 'seq-ordered').sequence)).toStrictEqual([1, 2, 1, 3]);
    for (const event of listed) expect(rowOf(event, 'seq-plain')).not.toHaveProperty('sequence');
  });

  it("the subscriber's deliveries list shows the numbers; an unordered subscriber's shows none", async () => {
    const ordered = (await t.api.get<{ list: Array<{ sequence?: number }> }>(`${SUBSCRIBERS}/seq-ordered/deliveries`)).body.list;
    expect(ordered.map((row) => row.sequence).sort()).toStrictEqual([1, 1, 2, 3]);
    const plain = (await t.api.get<{ list: Array<{ sequence?: number }> }>(`${SUBSCRIBERS}/seq-plain/deliveries`)).body.list;
    expect(plain).toHaveLength(4);
    for (const row of plain) expect(row).not.toHaveProperty('sequence');
  });

  it('a retried row keeps its number, and the retry answer shows it', async () => {
    const second = events[1]!;
    const row = rowOf(second, 'seq-ordered');
    const retried = await t.api.post<Delivery>(`${EVENTS}/${second.eventId}/deliveries/${row.deliveryId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ deliveryId: row.deliveryId, sequence: 2 });
    const plainRow = rowOf(second, 'seq-plain');
    const plain = await t.api.post<Delivery>(`${EVENTS}/${second.eventId}/deliveries/${plainRow.deliveryId}/retry`);
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('sequence');
  });
});
