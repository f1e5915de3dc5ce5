// Both examples together: the embedding app publishes from its request handler; the example
// receiver verifies, decrypts and records the events.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { testMongoUri, uniqueDbName } from '../../test/support/mongo.js';
import { createReceiver, type ReceivedEvent } from '../receiver/receiver.js';
import { startApp } from './app.js';

const secret = 'example-subscriber-secret';
const received: ReceivedEvent[] = [];
const receiver = createReceiver({ secret, onEvent: (event) => received.push(event) });
let app: Awaited<ReturnType<typeof startApp>>;
let appUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as AddressInfo).port;
  app = await startApp({
    mongoUri: testMongoUri(),
    dbName: uniqueDbName('embed'),
    masterKey: randomBytes(32).toString('base64'),
    subscriber: { targetUrl: `http://127.0.0.1:${receiverPort}/webhooks`, secret },
    ssrfAllowList: ['127.0.0.0/8'],
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

test('an order placed in the app reaches the receiver verified, with the card number decrypted', async () => {
  const response = await fetch(`${appUrl}/orders`, { method: 'POST' });
  expect(response.status).toBe(201);
  const { orderId } = (await response.json()) as { orderId: string };

  const deadline = Date.now() + 15_000;
  while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const byType = Object.fromEntries(received.map((event) => [event.eventType, event]));
  expect(byType['order.created']?.data).toEqual({ orderId, total: 42 });
  expect(byType['payment.captured']?.data).toEqual({ orderId, amount: 42, cardNumber: '4111111111111111' });
  expect(byType['payment.captured']?.profile).toBe('standard');
});

test('the receiver refuses a delivery it cannot verify', async () => {
  const port = (receiver.address() as AddressInfo).port;
  const forged = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'webhook-id': 'evt', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: '{"type":"order.created","data":{}}',
  });
  expect(forged.status).toBe(400);
  expect(await forged.json()).toEqual({ error: 'SIGNATURE_MISMATCH' });
});
