// `herald webhooks event-types` and `herald webhooks trigger` against the real host configured with an
// event catalog: the catalog as the API serves it, and a test event published from a type's example.
import { beforeAll, describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';
import { hasScript, runOnTerminal } from './support/terminal.js';

const keyGenerated = {
  type: 'apikey.generated',
  description: 'An API key was generated.',
  sensitive: ['token'],
  dataSchema: { type: 'object', required: ['name', 'token'], properties: { name: { type: 'string' }, token: { type: 'string' } } },
  example: { name: 'ci', token: 'hrd_example_token' },
};
const orderCreated = { type: 'order.created', description: 'An order was placed.' };

// The engine stays off: the published event's rows stay PENDING where the test can read them.
const cli = realHostSuite({ mode: 'api-only', overrides: { eventTypes: [orderCreated, keyGenerated] } });
const herald = cli.herald;

beforeAll(async () => {
  const subscriber = { id: 'keys-hook', displayName: 'Keys', targetUrl: 'http://127.0.0.1:9/never', events: ['apikey.*', 'order.*'], secret: 'keys-hook-secret-0001' };
  expect((await cli.host.api.post('/api/v0.9/webhook-subscribers', subscriber)).status).toBe(201);
});
const eventCount = async () => (await cli.host.api.get<{ pagination: { total: number } }>('/api/v0.9/webhook-events')).body.pagination.total;

interface EventDetail {
  eventId: string;
  eventType: string;
  aggregateId: string;
  deliveries: { subscriberId: string }[];
}

describe('webhooks event-types', () => {
  it.each([[[]], [['list']], [['--json']]])('event-types %j prints the catalog', async (extra) => {
    const run = await herald(['webhooks', 'event-types', ...extra]);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    const catalog = JSON.parse(run.text) as { list: Array<{ type: string }>; count: number };
    // Herald's own types (herald.*) are listed too; the configured ones follow in type order.
    expect(catalog.list.filter((entry) => !entry.type.startsWith('herald.'))).toStrictEqual([keyGenerated, { ...orderCreated, sensitive: [] }]);
    expect(catalog.count).toBe(catalog.list.length);
  });

  it('get prints one type', async () => {
    const run = await herald(['webhooks', 'event-types', 'get', 'apikey.generated']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.text)).toStrictEqual(keyGenerated);
  });

  it('get of a type the catalog lacks is exit 1 with the server\'s 404', async () => {
    const run = await herald(['webhooks', 'event-types', 'get', 'order.shipped']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 404 ORG_NOT_FOUND: Event type "order.shipped" is not in this host\'s catalog');
  });

  it.skipIf(!hasScript)('on a terminal, the list is a table', async () => {
    const { code, transcript } = await runOnTerminal(['webhooks', 'event-types'], cli.options);
    expect(code, transcript).toBe(0);
    expect(transcript).toMatch(/TYPE\s+SENSITIVE\s+DESCRIPTION/);
    expect(transcript).toMatch(/apikey\.generated\s+token\s+An API key was generated\./);
    expect(transcript).toMatch(/order\.created\s+-\s+An order was placed\./);
  }, 60_000);
});

describe('webhooks event-types export', () => {
  it('--format asyncapi prints the AsyncAPI document the instance serves', async () => {
    const run = await herald(['webhooks', 'event-types', 'export', '--format', 'asyncapi']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    const document = JSON.parse(run.text) as { asyncapi: string; channels: Record<string, unknown>; components: { messages: Record<string, { 'x-herald-sensitive-fields': string[] }> } };
    expect(document).toStrictEqual((await cli.host.api.get('/api/v0.9/asyncapi.json')).body);
    expect(document.asyncapi).toBe('3.0.0');
    expect(Object.keys(document.channels)).toEqual(expect.arrayContaining(['apikey.generated', 'order.created', 'herald.delivery_exhausted']));
    expect(document.components.messages['apikey.generated']!['x-herald-sensitive-fields']).toStrictEqual(['token']);
  });

  it('a token without dp:event:read is exit 1 with the server\'s 403; a wrong format is exit 2', async () => {
    const { token } = await cli.host.createToken(['dp:webhook_subscriber:manage']);
    const refused = await herald(['webhooks', 'event-types', 'export', '--format', 'asyncapi'], { env: { HERALD_TOKEN: token } });
    expect([refused.code, refused.text]).toStrictEqual([1, '']);
    expect(refused.stderr).toContain('HTTP 403 FORBIDDEN');
    const wrong = await herald(['webhooks', 'event-types', 'export', '--format', 'yaml']);
    expect([wrong.code, wrong.text]).toStrictEqual([2, '']);
    expect(wrong.stderr).toContain('--format must be one of asyncapi, got "yaml"');
  });
});

describe('webhooks trigger', () => {
  it("publishes the type's example and tells how to watch it", async () => {
    const run = await herald(['webhooks', 'trigger', 'apikey.generated']);
    expect(run.code).toBe(0);
    const event = JSON.parse(run.text) as EventDetail;
    expect(event).toMatchObject({ eventType: 'apikey.generated', aggregateId: expect.stringMatching(/^trigger-[0-9a-f]{12}$/) });
    expect(event.deliveries.map((delivery) => delivery.subscriberId)).toStrictEqual(['keys-hook']);
    expect(run.stderr).toBe(
      `Published event ${event.eventId} (apikey.generated, aggregate ${event.aggregateId}) with the type's example as data.\n` +
        `Watch its deliveries: herald webhooks events get ${event.eventId}\n`,
    );
    // The command it names works.
    const watched = await herald(['webhooks', 'events', 'get', event.eventId]);
    expect((JSON.parse(watched.text) as EventDetail).eventId).toBe(event.eventId);
  });

  it('--aggregate-id names the entity', async () => {
    const run = await herald(['webhooks', 'trigger', 'apikey.generated', '--aggregate-id', 'key-9', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.text)).toMatchObject({ aggregateId: 'key-9' });
  });

  it('a type without an example is exit 1 saying how to add one; nothing is published', async () => {
    const before = await eventCount();
    const run = await herald(['webhooks', 'trigger', 'order.created']);
    expect([run.code, run.text]).toStrictEqual([1, '']);
    expect(run.stderr).toContain('herald: event type "order.created" has no example to publish; nothing was published.');
    expect(run.stderr).toContain('"example" in its entry of eventTypes');
    expect(run.stderr).toContain('herald webhooks events send --type order.created');
    expect(await eventCount()).toBe(before);
  });

  it('a type the catalog lacks is exit 1 with the 404 and a hint; nothing is published', async () => {
    const before = await eventCount();
    const run = await herald(['webhooks', 'trigger', 'order.shipped']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 404 ORG_NOT_FOUND');
    expect(run.stderr).toContain("Run 'herald webhooks event-types' for the types this instance publishes.");
    expect(await eventCount()).toBe(before);
  });

  it("Herald's own types are documented but cannot be published: the server's refusal, exit 1", async () => {
    const run = await herald(['webhooks', 'trigger', 'herald.recovery_completed']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 400');
    expect(run.stderr).toContain('reserved');
  });

  it('without a type it is a usage error', async () => {
    const run = await herald(['webhooks', 'trigger']);
    expect([run.code, run.stderr]).toStrictEqual([2, "herald: missing <type> argument\nRun 'herald webhooks trigger --help' for usage.\n"]);
  });
});
