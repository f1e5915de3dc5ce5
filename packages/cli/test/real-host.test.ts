// The built `herald` against the real Herald host (Fastify, core, the run's FerretDB), for what a
// recording server cannot tell: that requests pass the server's schemas and routes as they are.
import { beforeAll, describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';

// The engine stays off: rows stay PENDING, so redeliver and retry find them as published.
const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;

beforeAll(async () => {
  const subscriber = { id: 'keys-hook', displayName: 'Keys', targetUrl: 'http://127.0.0.1:9/never', events: ['apikey.*'], secret: 'keys-hook-secret-0001' };
  expect((await cli.host.api.post('/api/v0.9/webhook-subscribers', subscriber)).status).toBe(201);
});
const sendArgs = ['webhooks', 'events', 'send', '--type', 'apikey.generated', '--aggregate-id', 'key-1', '--data', '{"name":"ci","token":"s3cr3t-value"}', '--sensitive', 'token'];

interface EventDetail {
  eventId: string;
  deliveries: { deliveryId: string; subscriberId: string; status: string }[];
}

describe('webhooks events against the real host', () => {
  let event: EventDetail;

  it('send publishes; the same Idempotency-Key returns the first event', async () => {
    const sent = await herald([...sendArgs, '--idempotency-key', 'cli-real-1']);
    expect([sent.code, sent.stderr]).toStrictEqual([0, '']);
    event = JSON.parse(sent.text) as EventDetail;
    expect(event.deliveries.map((delivery) => delivery.subscriberId)).toStrictEqual(['keys-hook']);
    const again = await herald([...sendArgs, '--idempotency-key', 'cli-real-1']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Idempotency-Key "cli-real-1" was used before');
    expect((JSON.parse(again.text) as EventDetail).eventId).toBe(event.eventId);
  });

  it('get reads the event; redeliver and retry (body-less POSTs) are accepted', async () => {
    const got = await herald(['webhooks', 'events', 'get', event.eventId, '--json']);
    expect(got.code).toBe(0);
    const detail = JSON.parse(got.text) as EventDetail;

    const redelivered = await herald(['webhooks', 'events', 'redeliver', event.eventId]);
    expect([redelivered.code, redelivered.stderr]).toStrictEqual([0, '']);
    expect((JSON.parse(redelivered.text) as EventDetail).eventId).toBe(event.eventId);

    const deliveryId = detail.deliveries[0]?.deliveryId as string;
    const retried = await herald(['webhooks', 'deliveries', 'retry', deliveryId, '--event', event.eventId]);
    expect([retried.code, retried.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(retried.text)).toMatchObject({ deliveryId, status: 'PENDING' });
  });

  it('an id ".." reaches the server as an id (and fails its validation), not as the parent path', async () => {
    const run = await herald(['webhooks', 'events', 'redeliver', '..']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('eventId: must match pattern');
  });

  it('the server\'s refusal of an event type is shown with the field', async () => {
    const run = await herald(['webhooks', 'events', 'send', '--type', 'NotAType', '--aggregate-id', 'x', '--data', '{}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('eventType: must match pattern');
  });
});

describe('webhooks subscribers --ordering against the real host', () => {
  it('create turns per-key ordering on, update --ordering none turns it off', async () => {
    const created = await herald(['webhooks', 'subscribers', 'create', '--id', 'ordered-keys', '--name', 'Ordered', '--url', 'http://127.0.0.1:9/never', '--event', 'order.*', '--ordering', 'aggregate', '--json']);
    expect([created.code, created.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(created.text)).toMatchObject({ id: 'ordered-keys', ordering: 'aggregate' });
    const off = await herald(['webhooks', 'subscribers', 'update', 'ordered-keys', '--ordering', 'none', '--json']);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.text)).not.toHaveProperty('ordering');
    const bad = await herald(['webhooks', 'subscribers', 'update', 'ordered-keys', '--ordering', 'fifo']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--ordering must be aggregate or none');
  });
});

describe('webhooks subscribers --filter against the real host', () => {
  it('create stores the filter, a publish reaches only events passing it, and none removes it', async () => {
    const created = await herald(['webhooks', 'subscribers', 'create', '--id', 'big-keys', '--name', 'Big', '--url', 'http://127.0.0.1:9/never', '--event', 'apikey.*', '--filter', '{"data.size":{"$gte":100}}', '--json']);
    expect([created.code, created.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(created.text)).toMatchObject({ id: 'big-keys', filter: { 'data.size': { $gte: 100 } } });
    const send = async (size: number) =>
      (JSON.parse((await herald(['webhooks', 'events', 'send', '--type', 'apikey.generated', '--aggregate-id', `k${size}`, '--data', JSON.stringify({ size })])).text) as EventDetail).deliveries
        .map((delivery) => delivery.subscriberId)
        .sort();
    expect(await send(5)).toStrictEqual(['keys-hook']);
    expect(await send(500)).toStrictEqual(['big-keys', 'keys-hook']);
    const cleared = await herald(['webhooks', 'subscribers', 'update', 'big-keys', '--filter', 'none', '--json']);
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.text)).not.toHaveProperty('filter');
  });

  it("the server's refusal names the path inside the filter", async () => {
    const run = await herald(['webhooks', 'subscribers', 'update', 'keys-hook', '--filter', '{"data.size":{"$regex":"^1"}}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('filter.data.size.$regex');
  });
});

describe('pages by cursor against the real host', () => {
  interface Page {
    list: { eventId: string }[];
    pagination: { total: number; offset: number };
    nextCursor?: string;
  }
  const listJson = async (...args: string[]) => {
    const run = await herald(['webhooks', 'events', 'list', '--json', ...args]);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    return JSON.parse(run.text) as Page;
  };

  beforeAll(async () => {
    for (let index = 0; index < 5; index++) {
      expect((await herald(['webhooks', 'events', 'send', '--type', 'apikey.generated', '--aggregate-id', `paged-${index}`, '--data', '{}'])).code).toBe(0);
    }
  });

  it('--cursor goes on from a page; --all follows nextCursor to the same events as one big page', async () => {
    const everything = await listJson('--limit', '100');
    const first = await listJson('--limit', '2');
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listJson('--limit', '2', '--cursor', first.nextCursor!);
    expect(second.pagination.offset).toBe(2);
    expect([...first.list, ...second.list].map((event) => event.eventId)).toStrictEqual(everything.list.slice(0, 4).map((event) => event.eventId));
    const all = await listJson('--limit', '2', '--all');
    expect(all.list.map((event) => event.eventId)).toStrictEqual(everything.list.map((event) => event.eventId));
  });

  it('--cursor with --offset is a usage error; a bad cursor is the server\'s 400 naming it', async () => {
    const both = await herald(['webhooks', 'events', 'list', '--cursor', 'a.b', '--offset', '2']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--cursor and --offset cannot be combined');
    const bad = await herald(['webhooks', 'events', 'list', '--cursor', 'not-a-cursor']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('cursor: must match pattern');
    const tampered = await herald(['webhooks', 'deliveries', 'keys-hook', '--cursor', 'abc.def']);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('cursor: was altered or belongs to another organization');
  });
});
