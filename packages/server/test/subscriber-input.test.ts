// What a subscriber is stored as: target URLs in WHATWG URL's spelling and only absolute http(s)
// with a host; event patterns bounded and each stored once; text that UTF-8 cannot carry refused
// rather than stored as U+FFFD. Over real HTTP, checked against what the store then holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
let t: TestHost;

interface Subscriber {
  id: string;
  targetUrl: string;
  events: string[];
  displayName: string;
}
interface ErrorBody {
  status: string;
  code: string;
  errors?: Array<{ field: string; message: string }>;
}

let created = 0;
function nextId(): string {
  created += 1;
  return `input-${created}`;
}

async function storedCount(): Promise<number> {
  return t.database.db.collection('herald_subscribers').countDocuments({});
}

beforeAll(async () => {
  t = await startTestHost();
  expect((await t.api.post(BASE, { id: 'target', displayName: 'Target', targetUrl: 'https://example.com/t' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('targetUrl', () => {
  it.each([
    ['http://:@127.0.0.1:1/', 'must not contain user info (user:password@)'],
    ['http://user:pw@example.com/', 'must not contain user info (user:password@)'],
    ['http://@example.com/', 'must not contain user info (user:password@)'],
    ['http:/example.com/x', 'must be an absolute http:// or https:// URL'],
    ['http:example.com', 'must be an absolute http:// or https:// URL'],
    ['http:///example.com/x', 'must name a host'],
    ['http://example.com:0/', 'must not use port 0'],
    ['http://example.com:00/', 'must not use port 0'],
    ['http://example.com/#section', 'must not have a fragment (#…)'],
    ['http://example.com/#', 'must not have a fragment (#…)'],
  ])('%s → 400 naming targetUrl, on create and on update', async (targetUrl, message) => {
    const before = await storedCount();
    const create = await t.api.post<ErrorBody>(BASE, { id: nextId(), displayName: 'x', targetUrl });
    expect(create.status).toBe(400);
    expect(create.body.errors).toContainEqual({ field: 'targetUrl', message });
    const update = await t.api.put<ErrorBody>(`${BASE}/target`, { targetUrl });
    expect(update.status).toBe(400);
    expect(update.body.errors).toContainEqual({ field: 'targetUrl', message });
    expect(await storedCount()).toBe(before);
    expect((await t.api.get<Subscriber>(`${BASE}/target`)).body.targetUrl).toBe('https://example.com/t');
  });

  it.each([
    ['HTTPS://Example.COM:443/a/../b?x=1', 'https://example.com/b?x=1'],
    ['http://example.com', 'http://example.com/'],
    ['http://EXAMPLE.com:8080/Path', 'http://example.com:8080/Path'],
    ['https://127.0.0.1:8443/hook', 'https://127.0.0.1:8443/hook'],
  ])('%s is stored as %s', async (targetUrl, normalised) => {
    const id = nextId();
    const create = await t.api.post<Subscriber>(BASE, { id, displayName: 'x', targetUrl });
    expect(create.status).toBe(201);
    expect(create.body.targetUrl).toBe(normalised);
    expect((await t.api.get<Subscriber>(`${BASE}/${id}`)).body.targetUrl).toBe(normalised);
    const update = await t.api.put<Subscriber>(`${BASE}/${id}`, { targetUrl: targetUrl.replace('/b?', '/c?') });
    expect(update.status).toBe(200);
    expect(update.body.targetUrl).toBe(normalised.replace('/b?', '/c?'));
  });
});

describe('events', () => {
  it('a pattern of 255 characters is accepted, 256 is a 400 naming it', async () => {
    const longest = `${'a'.repeat(127)}.${'b'.repeat(127)}`;
    expect(longest).toHaveLength(255);
    const ok = await t.api.post<Subscriber>(BASE, { id: nextId(), displayName: 'x', targetUrl: 'https://example.com/e', events: [longest] });
    expect(ok.status).toBe(201);
    const tooLong = await t.api.post<ErrorBody>(BASE, { id: nextId(), displayName: 'x', targetUrl: 'https://example.com/e', events: ['a.b', `${longest}c`] });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors).toContainEqual({ field: 'events.1', message: expect.stringContaining('255') });
  });

  it('more than 100 patterns is a 400', async () => {
    const events = Array.from({ length: 101 }, (_, index) => `family${index}.*`);
    const response = await t.api.post<ErrorBody>(BASE, { id: nextId(), displayName: 'x', targetUrl: 'https://example.com/e', events });
    expect(response.status).toBe(400);
    expect(response.body.errors!.map((error) => error.field)).toContain('events');
  });

  it('repeated patterns are stored once, in first-seen order, on create and update', async () => {
    const id = nextId();
    const create = await t.api.post<Subscriber>(BASE, { id, displayName: 'x', targetUrl: 'https://example.com/e', events: ['a.b', 'a.*', 'a.b', '*', 'a.*'] });
    expect(create.status).toBe(201);
    expect(create.body.events).toEqual(['a.b', 'a.*', '*']);
    const update = await t.api.put<Subscriber>(`${BASE}/${id}`, { events: ['x.y', 'x.y'] });
    expect(update.body.events).toEqual(['x.y']);
    expect((await t.api.get<Subscriber>(`${BASE}/${id}`)).body.events).toEqual(['x.y']);
  });

  it('a published event type over 255 characters is a 400 naming eventType', async () => {
    const eventType = `${'a'.repeat(200)}.${'b'.repeat(60)}`;
    const response = await t.api.post<ErrorBody>('/api/v0.9/webhook-events', { eventType, aggregateId: 'x', data: {} });
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ field: 'eventType', message: expect.stringContaining('255') });
  });
});

describe('ill-formed text', () => {
  const json = (text: string) => ({ rawBody: text, headers: { 'content-type': 'application/json' } });

  it.each([
    ['displayName', `{"displayName":"bad \\ud800 name","targetUrl":"https://example.com/s"}`],
    ['events.0', `{"displayName":"x","targetUrl":"https://example.com/s","events":["a\\udc00.b"]}`],
    ['secret', `{"displayName":"x","targetUrl":"https://example.com/s","secret":"0123456789abcdef\\ud83d"}`],
    ['targetUrl', `{"displayName":"x","targetUrl":"https://example.com/\\ud800"}`],
  ])('an unpaired surrogate in %s → 400 naming it, nothing stored', async (field, body) => {
    const before = await storedCount();
    const response = await t.api.request<ErrorBody>('POST', BASE, json(body));
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ field, message: 'must be well-formed Unicode (no unpaired surrogates)' });
    expect(await storedCount()).toBe(before);
  });

  it.each([
    ['displayName', BASE, `{"displayName":"bad \\u0000 name","targetUrl":"https://example.com/s"}`],
    ['description', '/api/v1/orgs/default/projects', `{"id":"nul-project","displayName":"N","description":"a\\u0000b"}`],
  ])('a NUL character in %s → 400 naming it, nothing stored (PostgreSQL-backed stores cannot hold it)', async (field, path, body) => {
    const before = await storedCount();
    const response = await t.api.request<ErrorBody>('POST', path, json(body));
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ field, message: 'must not contain NUL characters' });
    expect(await storedCount()).toBe(before);
  });

  it('a well-formed pair is fine', async () => {
    const response = await t.api.request<Subscriber>('POST', BASE, json(`{"id":"${nextId()}","displayName":"rocket \\ud83d\\ude80","targetUrl":"https://example.com/s"}`));
    expect(response.status).toBe(201);
    expect(response.body.displayName).toBe('rocket 🚀');
  });

  it.each([
    ['aggregateId', `{"eventType":"a.b","aggregateId":"\\udfff","data":{}}`],
    ['data.note', `{"eventType":"a.b","aggregateId":"x","data":{"note":"\\ud800"}}`],
  ])('an unpaired surrogate in a published event\'s %s → 400 naming it', async (field, body) => {
    const response = await t.api.request<ErrorBody>('POST', '/api/v0.9/webhook-events', json(body));
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ field, message: 'must be well-formed Unicode (no unpaired surrogates)' });
  });
});
