// `herald webhooks subscribers recover` against the real host with its delivery engine: a delivery
// that failed while the receiver was down is sent again, and --wait follows the recovery to the end
// (on a terminal too, where progress is drawn on standard error).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';
import { hasScript, runOnTerminal } from './support/terminal.js';

const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';
const cli = realHostSuite({ overrides: { retryScheduleMs: [50], maxAttempts: 1 } });
const herald = cli.herald;
let receiver: Server;
let answer = 500;

interface Recovery { recoveryId: string; subscriberId: string; status: string; requeued: number }

beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(answer).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  expect((await cli.host.api.post(SUBSCRIBERS, { id: 'was-down', displayName: 'Was down', targetUrl, events: ['order.*'] })).status).toBe(201);
  expect((await cli.host.api.post(SUBSCRIBERS, { id: 'paused', displayName: 'Paused', targetUrl, events: ['none.*'], enabled: false })).status).toBe(201);
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Publishes while the receiver fails, waits for the row to be FAILED, then brings the receiver back. */
async function failedDelivery(): Promise<string> {
  answer = 500;
  const published = await cli.host.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'order.created', aggregateId: 'o1', data: {} });
  expect(published.status).toBe(201);
  const status = async () => (await cli.host.api.get<{ status: string }>(`/api/v0.9/webhook-events/${published.body.eventId}`)).body.status;
  await expect.poll(status, { timeout: 15_000 }).toBe('FAILED');
  answer = 204;
  return published.body.eventId;
}

describe('webhooks subscribers recover against the real host', () => {
  let recoveryId: string;

  it('--wait sends the failed delivery again and prints the COMPLETED recovery', async () => {
    const eventId = await failedDelivery();
    const run = await herald(['webhooks', 'subscribers', 'recover', 'was-down', '--since', '1h', '--wait']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    const recovery = JSON.parse(run.text) as Recovery;
    expect(recovery).toMatchObject({ subscriberId: 'was-down', status: 'COMPLETED', requeued: 1 });
    recoveryId = recovery.recoveryId;
    const status = async () => (await cli.host.api.get<{ status: string }>(`/api/v0.9/webhook-events/${eventId}`)).body.status;
    await expect.poll(status, { timeout: 15_000 }).toBe('ALL_DELIVERED');
  });

  it('recovery shows it afterwards', async () => {
    const run = await herald(['webhooks', 'subscribers', 'recovery', 'was-down', recoveryId]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.text)).toMatchObject({ recoveryId, status: 'COMPLETED', requeued: 1 });
  });

  it.skipIf(!hasScript)('on a terminal, --wait draws progress on standard error, then the recovery', async () => {
    await failedDelivery();
    const { code, transcript } = await runOnTerminal(['webhooks', 'subscribers', 'recover', 'was-down', '--since', '10m', '--wait'], cli.options);
    expect(code, transcript).toBe(0);
    expect(transcript).toMatch(/Recovery rec_[0-9a-f]{16} of was-down: (QUEUED|RUNNING), 0 deliveries sent again so far/);
    // The final key/value view (Ink, on stdout).
    expect(transcript).toMatch(/status\s+COMPLETED/);
    expect(transcript).toMatch(/requeued\s+1/);
  }, 60_000);

  it('a disabled subscriber is refused by the server: exit 1 with its message', async () => {
    const run = await herald(['webhooks', 'subscribers', 'recover', 'paused', '--since', '1h']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 409');
  });

  it('a recovery id of the wrong form reaches the server and is refused there', async () => {
    const run = await herald(['webhooks', 'subscribers', 'recovery', 'was-down', 'rec_nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('recoveryId: must match pattern');
  });
});
