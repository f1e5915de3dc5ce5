// Malformed input of every kind gets a 4xx in the ErrorResponse shape with field details, writes
// nothing, and leaves no secret in the logs.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
const SECRET = 'bad-input-secret-value-xyz';
let t: TestHost;

interface ErrorBody {
  status: string;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}

async function subscriberCount(): Promise<number> {
  return t.database.db.collection('herald_subscribers').countDocuments({});
}

beforeAll(async () => {
  t = await startTestHost();
  expect((await t.api.post(BASE, { id: 'existing', displayName: 'Existing', targetUrl: 'https://example.com/e' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

function expectFieldError(body: ErrorBody, field: string) {
  expect(body.status).toBe('error');
  expect(body.code).toBe('MISSING_REQUIRED_PARAMETER');
  expect(body.errors?.map((error) => error.field)).toContain(field);
}

describe('bodies', () => {
  it('malformed JSON → 400 naming the body', async () => {
    const response = await t.api.request<ErrorBody>('POST', BASE, {
      rawBody: `{"displayName": "x", "secret": "${SECRET}",`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expectFieldError(response.body, 'body');
  });

  it('empty JSON body → 400', async () => {
    const response = await t.api.request<ErrorBody>('POST', BASE, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expectFieldError(response.body, 'body');
  });

  it('a JSON array or string instead of an object → 400', async () => {
    for (const json of [[1, 2], 'text', 42, null]) {
      const response = await t.api.request<ErrorBody>('POST', BASE, { rawBody: JSON.stringify(json), headers: { 'content-type': 'application/json' } });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    }
  });

  it.each([
    ['{"displayName":"x","targetUrl":"https://example.com/p","__proto__":{"admin":true}}', 'body.__proto__'],
    ['{"displayName":"x","targetUrl":"https://example.com/p","events":[{"constructor":{"prototype":{"a":1}}}]}', 'body.events[0].constructor.prototype'],
  ])('a prototype key is refused, not merged, with its path and the reason: %s', async (rawBody, field) => {
    const response = await t.api.request<ErrorBody>('POST', BASE, { rawBody, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field, message: expect.stringMatching(/could alter object prototypes/) }] });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('a key merely named "constructor" or "prototype" is data like any other', async () => {
    const response = await t.api.request<ErrorBody>('POST', '/api/v0.9/webhook-events', {
      rawBody: '{"eventType":"proto.test","aggregateId":"p1","data":{"constructor":"c","prototype":{"x":1}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(201);
  });

  it.each([
    ['text/plain', 'displayName=x'],
    ['application/x-www-form-urlencoded', 'displayName=x&targetUrl=https%3A%2F%2Fexample.com'],
    ['application/xml', '<subscriber/>'],
  ])('content type %s → 415 UNSUPPORTED_MEDIA_TYPE', async (contentType, rawBody) => {
    const response = await t.api.request<ErrorBody>('POST', BASE, { rawBody, headers: { 'content-type': contentType } });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ status: 'error', code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it.each(['application/json; charset=latin1', 'application/json; charset="ISO-8859-1"', 'application/json;charset=utf-16'])(
    'content type %s → 415 UNSUPPORTED_MEDIA_TYPE naming the charset, nothing written',
    async (contentType) => {
      const rawBody = '{"id":"latin1-hook","displayName":"Caf\u00e9","targetUrl":"https://example.com/l"}';
      const response = await t.api.request<ErrorBody>('POST', BASE, { rawBody, headers: { 'content-type': contentType } });
      expect(response.status).toBe(415);
      expect(response.body).toMatchObject({ status: 'error', code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/UTF-8.*charset=/) });
      expect((await t.api.get(`${BASE}/latin1-hook`)).status).toBe(404);
    },
  );

  it.each(['application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json; charset="utf-8"'])('content type %s is accepted', async (contentType) => {
    const id = `utf8-${Buffer.from(contentType).toString('hex').slice(-12)}`;
    const rawBody = JSON.stringify({ id, displayName: 'Caf\u00e9', targetUrl: 'https://example.com/u8' });
    const response = await t.api.request<{ displayName: string }>('POST', BASE, { rawBody, headers: { 'content-type': contentType } });
    expect(response.status).toBe(201);
    expect(response.body.displayName).toBe('Caf\u00e9');
    // This file ends by checking that bad input wrote nothing: the accepted ones leave no trace.
    expect((await t.api.request('DELETE', `${BASE}/${id}`)).status).toBe(204);
  });

  it('a body over 1 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await t.api.request<ErrorBody>('POST', BASE, {
      json: { displayName: 'x'.repeat(1024 * 1024), targetUrl: 'https://example.com/big' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ status: 'error', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('unknown fields → 400 naming each', async () => {
    const response = await t.api.post<ErrorBody>(BASE, {
      displayName: 'x',
      targetUrl: 'https://example.com/u',
      owner: 'me',
      hasSecret: true,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'owner', message: 'is not allowed' },
        { field: 'hasSecret', message: 'is not allowed' },
      ]),
    );
  });

  it.each([
    ['displayName', 42],
    ['targetUrl', 'ftp://example.com/x'],
    ['targetUrl', 'not a url'],
    ['enabled', 'yes'],
    ['timeoutMs', '5000'],
    ['timeoutMs', 1.5],
    ['timeoutMs', 99],
    ['timeoutMs', 30001],
    ['events', 'apikey.*'],
    ['events', ['APIKEY.Created']],
    ['events', ['apikey']],
    ['secret', 'short'],
    ['id', '-leading-dash'],
    ['id', 'has space'],
    ['displayName', ''],
  ])('%s = %j → 400 naming the field', async (field, value) => {
    const response = await t.api.post<ErrorBody>(BASE, {
      displayName: 'x',
      targetUrl: 'https://example.com/types',
      [field]: value,
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(response.body.errors!.some((error) => error.field === field || error.field.startsWith(`${field}.`))).toBe(true);
  });

  it('events: [] → 400 on create, update and preview: an empty list would receive every event', async () => {
    const expected = [{ field: 'events', message: 'must list at least one pattern; ["*"] means every event' }];
    const created = await t.api.post<ErrorBody>(BASE, { displayName: 'x', targetUrl: 'https://example.com/none', events: [] });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual(expected);
    const updated = await t.api.put<ErrorBody>(`${BASE}/existing`, { events: [] });
    expect(updated.status).toBe(400);
    expect(updated.body.errors).toEqual(expected);
    const preview = await t.api.post<ErrorBody>(`${BASE}/filter-preview`, { filter: { type: 'a.b' }, events: [] });
    expect(preview.status).toBe(400);
    expect(preview.body.errors).toEqual(expected);
  });

  it('wrong types on update → 400, and the stored subscriber is unchanged', async () => {
    const response = await t.api.put<ErrorBody>(`${BASE}/existing`, { enabled: 'false', displayName: 'changed' });
    expect(response.status).toBe(400);
    expectFieldError(response.body, 'enabled');
    const stored = await t.api.get<{ displayName: string; enabled: boolean }>(`${BASE}/existing`);
    expect(stored.body).toMatchObject({ displayName: 'Existing', enabled: true });
  });
});

describe('JSON text the parsed value cannot show', () => {
  const EVENTS = '/api/v0.9/webhook-events';
  const json = { 'content-type': 'application/json' };

  async function eventCount(): Promise<number> {
    return t.database.db.collection('herald_events').countDocuments({});
  }

  it('a publish whose data nests 5,000 levels deep → 400 naming the body, not a stack overflow', async () => {
    const before = await eventCount();
    const data = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const response = await t.api.request<ErrorBody>('POST', EVENTS, { rawBody: `{"eventType":"deep.test","aggregateId":"d1","data":${data}}`, headers: json });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'body', message: expect.stringMatching(/nested more than \d+ levels deep/) }] });
    expect(await eventCount()).toBe(before);
  });

  it('a subscriber whose filter nests 5,000 levels deep → 400 naming the body', async () => {
    const filter = '{"$not":'.repeat(5000) + '{"type":"a.b"}' + '}'.repeat(5000);
    const response = await t.api.request<ErrorBody>('POST', BASE, {
      rawBody: `{"displayName":"Deep","targetUrl":"https://example.com/deep","events":["*"],"filter":${filter}}`,
      headers: json,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'body', message: expect.stringMatching(/nested more than \d+ levels deep/) }]);
    const preview = await t.api.request<ErrorBody>('POST', `${BASE}/filter-preview`, { rawBody: `{"filter":${filter}}`, headers: json });
    expect(preview.status).toBe(400);
    expect(preview.body.errors).toEqual([{ field: 'body', message: expect.stringMatching(/nested more than/) }]);
  });

  it('a filter deeper than filters may be, but within the body bound, is told the filter bound', async () => {
    const filter = '{"$not":'.repeat(40) + '{"type":"a.b"}' + '}'.repeat(40);
    const response = await t.api.request<ErrorBody>('POST', BASE, {
      rawBody: `{"displayName":"Deep","targetUrl":"https://example.com/deep","filter":${filter}}`,
      headers: json,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'filter', message: expect.stringMatching(/at most 8 levels/) }]);
  });

  it.each([
    ['{"eventType":"big.int","aggregateId":"b1","data":{"n":9007199254740993}}', 'data.n', 'must be <= 9007199254740991'],
    ['{"eventType":"big.int","aggregateId":"b1","data":{"list":[1,{"id":-12345678901234567890}]}}', 'data.list[1].id', 'must be >= -9007199254740991'],
  ])('an integer a JSON number cannot hold exactly → 400 naming its path: %s', async (rawBody, field, message) => {
    const before = await eventCount();
    const response = await t.api.request<ErrorBody>('POST', EVENTS, { rawBody, headers: json });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field, message: expect.stringContaining(message) }]);
    expect(await eventCount()).toBe(before);
  });

  it('2^53 − 1 itself, and the large number as a string, are accepted as sent', async () => {
    const response = await t.api.request<{ eventId: string }>('POST', EVENTS, {
      rawBody: '{"eventType":"big.int","aggregateId":"b2","data":{"n":9007199254740991,"s":"9007199254740993"}}',
      headers: json,
    });
    expect(response.status).toBe(201);
    const stored = await t.database.db.collection('herald_events').findOne({ _id: response.body.eventId as never });
    expect(JSON.parse(String(stored?.data))).toEqual({ n: 9007199254740991, s: '9007199254740993' });
  });

  it.each([
    ['aggregateId', Buffer.concat([Buffer.from('{"eventType":"utf.test","aggregateId":"k'), Buffer.from([0xff, 0xfe]), Buffer.from('","data":{}}')])],
    ['a data key (overlong "/")', Buffer.concat([Buffer.from('{"eventType":"utf.test","aggregateId":"k","data":{"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('":1}}')])],
  ])('bytes that are not UTF-8 in %s → 400, not stored as U+FFFD', async (_where, rawBody) => {
    const before = await eventCount();
    const response = await t.api.request<ErrorBody>('POST', EVENTS, { rawBody, headers: json });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'body', message: expect.stringMatching(/must be UTF-8/) }]);
    expect(await eventCount()).toBe(before);
  });

  it.each([
    ['{"eventType":"dup.test","aggregateId":"k","data":{"pw":"x"},"sensitive":["pw"],"sensitive":[]}', EVENTS, 'sensitive'],
    ['{"eventType":"dup.test","eventType":"other.test","aggregateId":"k","data":{}}', EVENTS, 'eventType'],
    ['{"eventType":"dup.test","aggregateId":"k","data":{"a":1,"\\u0061":2}}', EVENTS, 'data.a'],
    ['{"displayName":"Dup","targetUrl":"https://example.com/dup","targetUrl":"https://evil.example/"}', BASE, 'targetUrl'],
  ])('a key given twice in one object → 400 naming it: %s', async (rawBody, path, field) => {
    const before = await eventCount();
    const response = await t.api.request<ErrorBody>('POST', path, { rawBody, headers: json });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field, message: expect.stringMatching(/more than once in the same object/) }]);
    expect(await eventCount()).toBe(before);
  });
});

describe('query parameters', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=5.5', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['limit=1&limit=2', 'limit'],
    ['sort=name', 'sort'],
  ])('GET subscribers?%s → 400 naming %s', async (query, field) => {
    const response = await t.api.get<ErrorBody>(`${BASE}?${query}`);
    expect(response.status).toBe(400);
    expectFieldError(response.body, field);
  });

  it.each([
    ['status=DONE', 'status'],
    ['status=pending', 'status'],
    ['limit=0', 'limit'],
    ['offset=-5', 'offset'],
    ['page=2', 'page'],
  ])('GET events?%s → 400 naming %s', async (query, field) => {
    const response = await t.api.get<ErrorBody>(`/api/v0.9/webhook-events?${query}`);
    expect(response.status).toBe(400);
    expectFieldError(response.body, field);
  });

  it.each([
    [`${BASE}?offset=9007199254740993`, 'offset', 'must be <= 9007199254740991'],
    [`${BASE}?offset=9007199254740992`, 'offset', 'must be <= 9007199254740991'],
    [`${BASE}?offset=123456789012345678901234567890`, 'offset', 'must be <= 9007199254740991'],
    [`${BASE}?offset=-99999999999999999`, 'offset', 'must be >= 0'],
    [`${BASE}?limit=99999999999999999`, 'limit', 'must be <= 100'],
    [`/api/v0.9/webhook-events?offset=${'9'.repeat(400)}`, 'offset', 'must be <= 9007199254740991'],
    ['/api/v1/orgs?offset=9007199254740993', 'offset', 'must be <= 9007199254740991'],
  ])('GET %s → 400: integers beyond 2^53 − 1 are told the bound', async (path, field, message) => {
    const response = await t.api.get<ErrorBody>(path);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field, message }]);
  });

  it('the largest offset is accepted (an empty page)', async () => {
    const response = await t.api.get<{ list: unknown[]; pagination: { offset: number } }>(`${BASE}?offset=9007199254740991`);
    expect(response.status).toBe(200);
    expect(response.body.list).toEqual([]);
    expect(response.body.pagination.offset).toBe(9007199254740991);
  });

  it('an unknown status value names the allowed ones', async () => {
    const response = await t.api.get<ErrorBody>('/api/v0.9/webhook-events?status=DONE');
    expect(response.body.errors![0]!.message).toContain('ALL_DELIVERED');
  });

  it('routes without query parameters refuse any', async () => {
    for (const path of [`${BASE}/existing?x=1`, `${BASE}/existing/deliveries?limit=5`]) {
      const response = await t.api.get<ErrorBody>(path);
      expect(response.status, path).toBe(400);
      expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    }
  });
});

describe('path ids', () => {
  it.each([
    ['%20space', 'subscriberId'],
    ['...', 'subscriberId'],
    ['a%2Fb', 'subscriberId'],
    ['%00', 'subscriberId'],
    ['%E2%9C%93', 'subscriberId'],
    ['x'.repeat(300), 'subscriberId'],
    ['-dash', 'subscriberId'],
  ])('subscriber id %s → 400 naming the path parameter', async (id, field) => {
    const response = await t.api.get<ErrorBody>(`${BASE}/${id}`);
    expect(response.status).toBe(400);
    expectFieldError(response.body, field);
  });

  it('odd event ids → 400', async () => {
    const response = await t.api.get<ErrorBody>('/api/v0.9/webhook-events/%3Cscript%3E');
    expect(response.status).toBe(400);
    expectFieldError(response.body, 'eventId');
  });

  it('an unknown route → 404 in the ErrorResponse shape', async () => {
    const response = await t.api.get<ErrorBody>('/api/v0.9/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 'error', code: 'ORG_NOT_FOUND' });
  });
});

describe('HTTP framing', () => {
  async function raw(request: string): Promise<string> {
    const { port } = new URL(t.host.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  it('a request Node cannot parse → 400 in the ErrorResponse shape', async () => {
    const answer = await raw(`POST ${BASE} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      status: 'error',
      code: 'MISSING_REQUIRED_PARAMETER',
      message: 'Malformed HTTP request',
    });
  });

  it('oversized headers → 431 in the ErrorResponse shape', async () => {
    const answer = await raw(`GET ${BASE} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('"code":"HEADERS_TOO_LARGE"');
  });
});

it('wrote nothing and logged no secret or token', async () => {
  expect(await subscriberCount()).toBe(1);
  const logs = t.logs.join('\n');
  expect(logs).not.toContain(SECRET);
  expect(logs).not.toContain(t.adminToken);
  expect(logs).toContain('request rejected');
});
