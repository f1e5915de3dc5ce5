// `herald webhooks event-types` and `trigger` as the real executable against a recording server: the
// exact requests, and that nothing is published when the type has no usable example.
import { describe, expect, it } from 'vitest';
import { recordingServerSuite } from './support/cli-suite.js';
import { jsonReply as json } from './support/recording-server.js';

const cli = recordingServerSuite();
const herald = cli.herald;
const orderPaid = { type: 'order.paid', sensitive: [], example: { orderId: 'o-1', amount: 12.5, lines: [{ sku: 'a', qty: 2 }] } };
const event = { eventId: 'evt-1', eventType: 'order.paid', orgId: 'default', aggregateType: 'order', aggregateId: 'x', status: 'DISPATCHED', occurredAt: '2025-01-31T12:00:00.000Z', deliveries: [] };

describe('event-types', () => {
  it.each([
    [['event-types'], 'GET /api/v0.9/webhook-event-types'],
    [['event-types', 'list', '--json'], 'GET /api/v0.9/webhook-event-types'],
    [['event-types', 'get', 'order.paid'], 'GET /api/v0.9/webhook-event-types/order.paid'],
    [['event-types', 'get', '..'], 'GET /api/v0.9/webhook-event-types/%2E%2E'],
  ])('%j sends %s', async (args, request) => {
    cli.server.respond(() => json({ list: [], count: 0 }));
    const run = await herald(['webhooks', ...args]);
    expect(run.code).toBe(0);
    expect(cli.server.requests.map((recorded) => `${recorded.method} ${recorded.url}`)).toStrictEqual([request]);
  });

  it('--help shows the group, an unknown subcommand is a usage error', async () => {
    const help = await herald(['webhooks', 'event-types', '--help']);
    expect(help.code).toBe(0);
    expect(help.text).toContain('herald webhooks event-types [list | get <type> | export --format asyncapi]');
    const unknown = await herald(['webhooks', 'event-types', 'show']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "show" for "herald webhooks event-types"');
    expect(cli.server.requests).toHaveLength(0);
  });
});

describe('event-types export', () => {
  it('--format asyncapi reads /api/v0.9/asyncapi.json and prints it as JSON', async () => {
    const document = { asyncapi: '3.0.0', info: { title: 'T', version: '0.9' }, channels: { 'order.paid': { address: null } } };
    cli.server.respond(() => json(document));
    const run = await herald(['webhooks', 'event-types', 'export', '--format', 'asyncapi']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    expect(cli.server.requests.map((recorded) => `${recorded.method} ${recorded.url}`)).toStrictEqual(['GET /api/v0.9/asyncapi.json']);
    expect(JSON.parse(run.text)).toStrictEqual(document);
  });

  it.each([
    [['--format', 'openapi'], '--format must be one of asyncapi, got "openapi"'],
    [['--format=ASYNCAPI'], '--format must be one of asyncapi, got "ASYNCAPI"'],
    [['--format', ''], '--format must be one of asyncapi, got ""'],
    [['--format', 'constructor'], '--format must be one of asyncapi, got "constructor"'],
    [[], 'missing --format (supported: asyncapi)'],
    [['--format'], 'flag --format needs a value'],
    [['--format', 'asyncapi', '--yaml'], 'unknown flag --yaml'],
    [['--format', 'asyncapi', 'order.paid'], 'unexpected argument "order.paid"'],
  ])('%j is a usage error (exit 2) and sends nothing', async (args, message) => {
    const run = await herald(['webhooks', 'event-types', 'export', ...args]);
    expect([run.code, run.text]).toStrictEqual([2, '']);
    expect(run.stderr).toContain(`herald: ${message}`);
    expect(run.stderr).toContain("'herald webhooks event-types export --help'");
    expect(cli.server.requests).toHaveLength(0);
  });

  it('an oversize --format is named by its start only, exit 2, nothing sent', async () => {
    const run = await herald(['webhooks', 'event-types', 'export', '--format', 'x'.repeat(100_000)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`herald: --format must be one of asyncapi, got "${'x'.repeat(40)}…"\n`);
    expect(run.stderr.length).toBeLessThan(300);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('--help names the format, and the group lists the command', async () => {
    const help = await herald(['webhooks', 'event-types', 'export', '--help']);
    expect(help.code).toBe(0);
    expect(help.text).toContain('herald webhooks event-types export --format asyncapi');
    expect((await herald(['webhooks', 'event-types', '--help'])).text).toContain('export');
    expect(cli.server.requests).toHaveLength(0);
  });

  it("the server's refusal is exit 1 with its code", async () => {
    cli.server.respond(() => json({ status: 'error', code: 'FORBIDDEN', message: 'Token lacks scope dp:event:read' }, 403));
    const run = await herald(['webhooks', 'event-types', 'export', '--format', 'asyncapi']);
    expect([run.code, run.text]).toStrictEqual([1, '']);
    expect(run.stderr).toContain('HTTP 403 FORBIDDEN');
  });
});

describe('trigger', () => {
  it('reads the type, then publishes its example as data under a random trigger- aggregate', async () => {
    cli.server.respond((request) => (request.method === 'GET' ? json(orderPaid) : json(event, 201)));
    const run = await herald(['webhooks', 'trigger', 'order.paid']);
    expect(run.code).toBe(0);
    expect(cli.server.requests.map((recorded) => `${recorded.method} ${recorded.url}`)).toStrictEqual([
      'GET /api/v0.9/webhook-event-types/order.paid',
      'POST /api/v0.9/webhook-events',
    ]);
    const body = JSON.parse(cli.server.requests[1]!.body.toString()) as { aggregateId: string };
    expect(body).toStrictEqual({ eventType: 'order.paid', aggregateId: expect.stringMatching(/^trigger-[0-9a-f]{12}$/), data: orderPaid.example });
    expect(JSON.parse(run.text)).toStrictEqual(event);
    expect(run.stderr).toContain('Watch its deliveries: herald webhooks events get evt-1');
  });

  it('two triggers get different aggregates; --aggregate-id sets one', async () => {
    cli.server.respond((request) => (request.method === 'GET' ? json(orderPaid) : json(event, 201)));
    await herald(['webhooks', 'trigger', 'order.paid']);
    await herald(['webhooks', 'trigger', 'order.paid']);
    await herald(['webhooks', 'trigger', 'order.paid', '--aggregate-id', 'order-42']);
    const aggregates = cli.server.requests.filter((request) => request.method === 'POST').map((request) => (JSON.parse(request.body.toString()) as { aggregateId: string }).aggregateId);
    expect(new Set(aggregates).size).toBe(3);
    expect(aggregates[2]).toBe('order-42');
  });

  it.each([
    ['no example', { type: 'order.paid', sensitive: [] }],
    ['an example that is not an object', { type: 'order.paid', sensitive: [], example: [1, 2] }],
  ])('%s: exit 1 explaining eventTypes[].example; nothing is published', async (_name, type) => {
    cli.server.respond(() => json(type));
    const run = await herald(['webhooks', 'trigger', 'order.paid']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('event type "order.paid" has no example to publish; nothing was published.');
    expect(run.stderr).toContain('"example" in its entry of eventTypes');
    expect(cli.server.requests.map((request) => request.method)).toStrictEqual(['GET']);
  });

  it('an empty --aggregate-id is a usage error and sends nothing', async () => {
    const run = await herald(['webhooks', 'trigger', 'order.paid', '--aggregate-id', '']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--aggregate-id is empty');
    expect(cli.server.requests).toHaveLength(0);
  });
});
