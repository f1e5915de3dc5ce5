// GET /webhook-event-types[/{type}] over real HTTP against a host configured with a catalog, and
// the start-time checks of that catalog (a schema that compiles, an example that satisfies it).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { problemsOf } from './support/config-problems.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-event-types';
const keyGenerated = {
  type: 'apikey.generated',
  description: 'An API key was generated.',
  sensitive: ['token', 'token'],
  dataSchema: { type: 'object', required: ['name', 'token'], properties: { name: { type: 'string' }, token: { type: 'string' } } },
  example: { name: 'ci', token: 'hrd_example' },
};
const orderCreated = { type: 'order.created' };

interface EventType { type: string; description?: string; sensitive: string[]; dataSchema?: unknown; example?: unknown }
interface ErrorBody { code: string; message: string; errors?: Array<{ field: string }> }

let t: TestHost;

beforeAll(async () => {
  // Configured out of order: the API sorts by type.
  t = await startTestHost({ mode: 'api-only', overrides: { eventTypes: [orderCreated, keyGenerated] } });
});
afterAll(async () => {
  await t?.close();
});

describe('reading the catalog', () => {
  it('lists every configured type, sorted, with only the fields each has (sensitive always, deduplicated), then Herald\'s own', async () => {
    const response = await t.api.get<{ list: EventType[]; count: number }>(BASE);
    expect(response.status).toBe(200);
    const configured = response.body.list.filter((entry) => !entry.type.startsWith('herald.'));
    expect(configured).toStrictEqual([{ ...keyGenerated, sensitive: ['token'] }, { type: 'order.created', sensitive: [] }]);
    // Herald's operational events are documented in the same catalog (docs/operations.md).
    expect(response.body.list.filter((entry) => entry.type.startsWith('herald.')).map((entry) => entry.type)).toEqual([
      'herald.delivery_exhausted',
      'herald.delivery_stalled',
      'herald.recovery_completed',
      'herald.subscriber_disabled',
      'herald.subscriber_failing',
      'herald.subscriber_recovered',
    ]);
    expect(response.body.count).toBe(8);
  });

  it('every served example satisfies the served data schema (the configured types and Herald\'s own)', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const { list } = (await t.api.get<{ list: EventType[] }>(BASE)).body;
    for (const entry of list.filter((item) => item.example !== undefined && item.dataSchema !== undefined)) {
      const check = ajv.compile(entry.dataSchema as object);
      expect(check(entry.example), `${entry.type}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
    expect(list.filter((item) => item.example !== undefined).length).toBeGreaterThan(1);
  });

  it('gets one type', async () => {
    const response = await t.api.get<EventType>(`${BASE}/apikey.generated`);
    expect(response.status).toBe(200);
    expect(response.body).toStrictEqual({ ...keyGenerated, sensitive: ['token'] });
  });

  it('a well-formed type that is not configured is 404 ORG_NOT_FOUND naming it', async () => {
    const response = await t.api.get<ErrorBody>(`${BASE}/order.shipped`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('ORG_NOT_FOUND');
    expect(response.body.message).toContain('order.shipped');
  });

  it.each([['NotAType'], ['apikey'], [`a.${'b'.repeat(300)}`]])('a malformed type %s is a 400 naming the parameter', async (type) => {
    const response = await t.api.get<ErrorBody>(`${BASE}/${type}`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((issue) => issue.field)).toContain('type');
  });

  it('takes no query parameters', async () => {
    const response = await t.api.get<ErrorBody>(`${BASE}?limit=5`);
    expect(response.status).toBe(400);
  });

  it('needs dp:event:read', async () => {
    const reader = await t.createToken(['dp:event:read']);
    const other = await t.createToken(['dp:webhook_subscriber:manage']);
    expect((await t.api.withToken(reader.token).get(BASE)).status).toBe(200);
    expect((await t.api.withToken(reader.token).get(`${BASE}/order.created`)).status).toBe(200);
    expect((await t.api.withToken(other.token).get(BASE)).status).toBe(403);
    expect((await t.api.withToken(undefined).get(`${BASE}/order.created`)).status).toBe(401);
  });

  it('the documented example publishes as the type\'s data', async () => {
    const published = await t.api.post<{ eventType: string }>('/api/v0.9/webhook-events', {
      eventType: keyGenerated.type,
      aggregateId: 'key-1',
      data: keyGenerated.example,
    });
    expect(published.status).toBe(201);
  });
});

describe('checking the catalog at start', () => {
  const load = (eventTypes: unknown[]) => loadConfig({ env: {}, overrides: { mongodbUri: 'mongodb://127.0.0.1:1/', eventTypes } });

  it('accepts descriptions and examples, with or without a data schema', () => {
    const config = load([keyGenerated, { type: 'order.created', description: 'An order was placed.', example: { anything: [1, 2] } }]);
    expect(config.eventTypes.map((definition) => definition.type)).toStrictEqual(['apikey.generated', 'order.created']);
  });

  it('an example that does not satisfy the data schema is refused, naming the type and the field', () => {
    const problems = problemsOf(() => load([orderCreated, { ...keyGenerated, example: { name: 7 } }]));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('eventTypes.1: event type "apikey.generated": example does not match its dataSchema');
    expect(problems[0]).toContain('example.name must be string');
    expect(problems[0]).toContain("must have required property 'token'");
  });

  it("Herald's own family cannot be configured", () => {
    const problems = problemsOf(() => load([{ type: 'herald.delivery_exhausted', description: 'mine' }]));
    expect(problems.join('\n')).toContain('eventTypes.0: event type "herald.delivery_exhausted": the "herald" family is reserved');
  });

  it('a data schema that does not compile is refused at load, naming the type', () => {
    const problems = problemsOf(() => load([{ type: 'order.created', dataSchema: { type: 'no-such-type' } }]));
    expect(problems.join('\n')).toContain('eventTypes.0: event type "order.created" has an invalid data schema');
  });

  it.each([
    [{ type: 'order.created', example: [1] }, 'eventTypes.0.example'],
    [{ type: 'order.created', example: 'text' }, 'eventTypes.0.example'],
    [{ type: 'order.created', description: '' }, 'eventTypes.0.description'],
  ])('%j is refused (%s)', (definition, field) => {
    expect(problemsOf(() => load([definition])).join('\n')).toContain(field);
  });
});
