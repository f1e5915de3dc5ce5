// GET /api/v0.9/asyncapi.json over real HTTP: the document passes the official AsyncAPI parser with
// no error, names every type of the catalog, marks sensitive fields, and describes what a real
// subscriber receives — a delivery to a loopback sink matches its message's headers and payload,
// and the sensitive field decrypts as the document says. Both signing profiles.
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const PATH = '/api/v0.9/asyncapi.json';
const SECRET = 'asyncapi-shared-secret-0123';
const keyGenerated = {
  type: 'apikey.generated',
  description: 'An API key was generated.',
  sensitive: ['token'],
  dataSchema: {
    type: 'object',
    required: ['name', 'token'],
    additionalProperties: false,
    properties: { name: { $ref: '#/$defs/name' }, token: { type: 'string' } },
    $defs: { name: { type: 'string', minLength: 1 } },
  },
  example: { name: 'ci', token: 'hrd_example_token' },
};
const orderCreated = { type: 'order.created', description: 'An order was placed.' };

type Json = Record<string, unknown>;
interface Delivery { headers: IncomingHttpHeaders; body: string }

const parser = new Parser();
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);

/** The parser's diagnostics at error level (Spectral severity 0), as readable lines. */
async function parseErrors(document: unknown): Promise<string[]> {
  const { diagnostics } = await parser.parse(JSON.stringify(document));
  return diagnostics.filter((diagnostic) => diagnostic.severity === 0).map((diagnostic) => `${diagnostic.path.join('.')}: ${diagnostic.message}`);
}

/** The message's payload and headers schemas, every reference resolved by the parser. */
async function messageSchemas(document: unknown, type: string): Promise<{ payload: Json; headers: Json }> {
  const parsed = await parser.parse(JSON.stringify(document));
  const message = parsed.document?.messages().all().find((candidate) => candidate.id() === type);
  if (!message) throw new Error(`no message ${type}`);
  return { payload: message.payload()?.json() as Json, headers: message.headers()?.json() as Json };
}

function expectValid(schema: Json, value: unknown, what: string): void {
  const check = ajv.compile(schema);
  expect(check(value), `${what}: ${JSON.stringify(check.errors)}`).toBe(true);
}

async function startSink(received: Delivery[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/** Decrypts an EncryptedField only from what the document states: HKDF-SHA3-256 with its info, AES-256-GCM. */
function decryptAsDocumented(document: Json, field: { iv: string; tag: string; ciphertext: string }): string {
  const encryption = ((document.components as Json).schemas as Record<string, Json>).EncryptedField!['x-herald-field-encryption'] as { info: string };
  const key = Buffer.from(hkdfSync('sha3-256', Buffer.from(SECRET, 'utf8'), Buffer.alloc(0), encryption.info, 32));
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(field.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(field.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(field.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

async function deliverOne(t: TestHost, received: Delivery[], sinkUrl: string, handle: string): Promise<Delivery> {
  expect((await t.api.post('/api/v0.9/webhook-subscribers', { id: handle, displayName: handle, targetUrl: sinkUrl, secret: SECRET, events: ['apikey.*'] })).status).toBe(201);
  expect((await t.api.post('/api/v0.9/webhook-events', { eventType: 'apikey.generated', aggregateId: 'key-1', data: { name: 'deploy', token: 'hrd_live_secret_value' } })).status).toBe(201);
  const deadline = Date.now() + 20_000;
  while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(received).toHaveLength(1);
  return received[0]!;
}

describe('standard profile', () => {
  let t: TestHost;
  let sink: { server: Server; url: string };
  const received: Delivery[] = [];
  let document: Json;

  beforeAll(async () => {
    sink = await startSink(received);
    t = await startTestHost({ overrides: { eventTypes: [orderCreated, keyGenerated], deliveryTraceparent: true } });
    const response = await t.api.get<Json>(PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = response.body;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => sink?.server.close(resolve));
  });

  it('passes the AsyncAPI parser with no error-level diagnostic', async () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(document.info).toMatchObject({ title: 'Herald webhook events', version: '0.9' });
    expect(await parseErrors(document)).toStrictEqual([]);
  });

  it('has a channel, a message and a send operation for every type of the catalog, Herald\'s own included', async () => {
    const catalog = (await t.api.get<{ list: Array<{ type: string }> }>('/api/v0.9/webhook-event-types')).body.list.map((entry) => entry.type);
    expect(catalog).toContain('herald.delivery_exhausted');
    expect(Object.keys(document.channels as Json)).toStrictEqual(catalog);
    expect(Object.keys((document.components as Json).messages as Json)).toStrictEqual(catalog);
    const operations = document.operations as Record<string, Json>;
    expect(Object.keys(operations)).toStrictEqual(catalog);
    expect(operations['apikey.generated']).toMatchObject({ action: 'send', channel: { $ref: '#/channels/apikey.generated' } });
    expect(((document.channels as Record<string, Json>)['herald.delivery_exhausted']!.description as string)).toContain('`*` does not match it');
  });

  it('marks the sensitive field as an EncryptedField that is not required, and keeps the others as configured', async () => {
    const data = ((document.components as Json).schemas as Record<string, Json>)['apikey.generated.data']!;
    expect(data.required).toStrictEqual(['name']);
    expect(data.properties).toStrictEqual({
      name: { $ref: '#/components/schemas/apikey.generated.data/$defs/name' },
      token: {
        description: expect.stringContaining('Sensitive') as unknown,
        allOf: [{ $ref: '#/components/schemas/EncryptedField' }],
        'x-herald-sensitive': true,
        'x-herald-plaintext': { type: 'string' },
      },
    });
    expect(((document.components as Json).messages as Record<string, Json>)['apikey.generated']!['x-herald-sensitive-fields']).toStrictEqual(['token']);
  });

  it('names the standard signature headers (and traceparent, which this host sends)', async () => {
    const { headers } = await messageSchemas(document, 'apikey.generated');
    expect(Object.keys(headers.properties as Json)).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'herald-delivery-id', 'herald-attempt', 'traceparent']));
    expect(headers.required).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp']));
    expect(headers.required).not.toContain('webhook-signature');
    expect(document['x-herald-signing-profile']).toBe('standard');
  });

  it('a real delivery matches its message: headers, envelope, and a sensitive field that decrypts as documented', async () => {
    const delivery = await deliverOne(t, received, sink.url, 'asyncapi-standard');
    const { payload, headers } = await messageSchemas(document, 'apikey.generated');
    expectValid(headers, delivery.headers, 'headers');
    const body = JSON.parse(delivery.body) as { encryptedFields: string[]; data: { token: { iv: string; tag: string; ciphertext: string } } };
    expectValid(payload, body, 'body');
    expect(body.encryptedFields).toStrictEqual(['token']);
    expect(decryptAsDocumented(document, body.data.token)).toBe('hrd_live_secret_value');
    // The schemas constrain something: a token in plaintext, or an unknown envelope field, is refused.
    const check = ajv.compile(payload);
    expect(check({ ...body, data: { ...body.data, token: 'plain' } })).toBe(false);
    expect(check({ ...body, extra: 1 })).toBe(false);
  }, 30_000);

  it('each example is a body its message accepts', async () => {
    const { payload } = await messageSchemas(document, 'apikey.generated');
    const example = (((document.components as Json).messages as Record<string, Json>)['apikey.generated']!.examples as Json[])[0]!.payload as Json;
    expectValid(payload, example, 'example');
  });

  it('is the same document on every read', async () => {
    expect((await t.api.get(PATH)).text).toBe((await t.api.get(PATH)).text);
  });

  it('needs dp:event:read, like the catalog', async () => {
    const reader = await t.createToken(['dp:event:read']);
    const other = await t.createToken(['dp:webhook_subscriber:manage']);
    expect((await t.api.withToken(reader.token).get(PATH)).status).toBe(200);
    const refused = await t.api.withToken(other.token).get<{ code: string }>(PATH);
    expect([refused.status, refused.body.code]).toStrictEqual([403, 'FORBIDDEN']);
    expect((await t.api.withToken(undefined).get(PATH)).status).toBe(401);
    expect((await t.api.withToken('hrd_not_a_real_token').get(PATH)).status).toBe(401);
  });

  it('takes no query parameters and no other method', async () => {
    expect((await t.api.get(`${PATH}?format=yaml`)).status).toBe(400);
    expect((await t.api.get(`${PATH}?${'q'.repeat(4_000)}=1`)).status).toBe(400);
    expect((await t.api.request('POST', PATH, { json: {} })).status).toBe(405);
  });
});

describe('api-portal profile', () => {
  let t: TestHost;
  let sink: { server: Server; url: string };
  const received: Delivery[] = [];
  let document: Json;

  beforeAll(async () => {
    sink = await startSink(received);
    t = await startTestHost({ overrides: { eventTypes: [keyGenerated], signingProfile: 'api-portal' } });
    document = (await t.api.get<Json>(PATH)).body;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => sink?.server.close(resolve));
  });

  it('describes the api-portal envelope and headers, and passes the parser', async () => {
    expect(await parseErrors(document)).toStrictEqual([]);
    const { payload, headers } = await messageSchemas(document, 'apikey.generated');
    expect(Object.keys(payload.properties as Json)).toStrictEqual(['event_id', 'event_type', 'occurred_at', 'org', 'sequence', 'encrypted_fields', 'data']);
    expect(Object.keys(headers.properties as Json)).toEqual(expect.arrayContaining(['x-api-portal-event', 'x-api-portal-event-id', 'x-api-portal-signature']));
    expect(Object.keys(headers.properties as Json)).not.toContain('traceparent');
  });

  it('a real delivery matches its message, and decrypts as documented', async () => {
    const delivery = await deliverOne(t, received, sink.url, 'asyncapi-portal');
    const { payload, headers } = await messageSchemas(document, 'apikey.generated');
    expectValid(headers, delivery.headers, 'headers');
    const body = JSON.parse(delivery.body) as { encrypted_fields: string[]; data: { token: { iv: string; tag: string; ciphertext: string } } };
    expectValid(payload, body, 'body');
    expect(decryptAsDocumented(document, body.data.token)).toBe('hrd_live_secret_value');
  }, 30_000);
});
