// GET/PUT /webhook-retention over real HTTP: the organization's retention policy, its validation,
// and who may read and change it (docs/operations.md "Retention").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const PATH = '/api/v0.9/webhook-retention';

interface Policy { settledEventsDays: number; byEventType: Record<string, number>; source: string; hostDefault: { settledEventsDays: number }; updatedAt: string | null }
interface ErrorBody { code: string; message: string; errors?: Array<{ field: string; message: string }> }

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost({ mode: 'api-only' });
});
afterAll(async () => {
  await t?.close();
});

describe('reading and replacing the policy', () => {
  it('starts at the host default (30 days), takes the organization\'s own, and {} returns to the host\'s', async () => {
    const initial = await t.api.get<Policy>(PATH);
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({ settledEventsDays: 30, byEventType: {}, source: 'host', hostDefault: { settledEventsDays: 30, byEventType: {} }, updatedAt: null });

    const set = await t.api.put<Policy>(PATH, { settledEventsDays: 7, byEventType: { 'audit.logged': 0 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ settledEventsDays: 7, byEventType: { 'audit.logged': 0 }, source: 'organization' });
    expect(Date.parse(set.body.updatedAt!)).not.toBeNaN();
    expect((await t.api.get<Policy>(PATH)).body).toEqual(set.body);

    const back = await t.api.put<Policy>(PATH, {});
    expect(back.body).toMatchObject({ source: 'host', settledEventsDays: 30, updatedAt: null });
  });
});

describe('bad input changes nothing', () => {
  beforeAll(async () => {
    expect((await t.api.put(PATH, { settledEventsDays: 9 })).status).toBe(200);
  });

  it.each([
    ['a negative window', { settledEventsDays: -1 }, 'settledEventsDays'],
    ['a fraction', { settledEventsDays: 1.5 }, 'settledEventsDays'],
    ['a string', { settledEventsDays: '30' }, 'settledEventsDays'],
    ['more than 100 years', { settledEventsDays: 36_501 }, 'settledEventsDays'],
    ['an unknown field', { keepForever: true }, 'keepForever'],
    ['a list of types', { byEventType: ['a.b'] }, 'byEventType'],
    ['a key that is no event type', { byEventType: { 'Not a type': 1 } }, 'byEventType'],
    ['a negative per-type window', { byEventType: { 'a.b': -1 } }, 'byEventType'],
    ['more than 100 types', { byEventType: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`t.n${i}`, 1])) }, 'byEventType'],
  ])('%s → 400 naming the field', async (_name, body, field) => {
    const response = await t.api.put<ErrorBody>(PATH, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(response.body.errors?.map((error) => error.field).join(' ')).toContain(field);
    expect((await t.api.get<Policy>(PATH)).body.settledEventsDays).toBe(9);
  });

  it('no body or a JSON null → 400; a body that is not JSON → 400; another media type → 415', async () => {
    for (const raw of [undefined, 'null', '{"settledEventsDays":']) {
      const response = await fetch(`${t.host.url}${PATH}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.adminToken}`, ...(raw === undefined ? {} : { 'content-type': 'application/json' }) },
        body: raw,
      });
      expect(response.status).toBe(400);
    }
    const text = await fetch(`${t.host.url}${PATH}`, { method: 'PUT', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/plain' }, body: 'days=1' });
    expect(text.status).toBe(415);
    expect((await t.api.get<Policy>(PATH)).body.settledEventsDays).toBe(9);
  });
});

describe('who may', () => {
  it('reading takes dp:event:read, changing takes dp:delivery:manage; no token is 401', async () => {
    const reader = await t.createToken(['dp:event:read']);
    const manager = await t.createToken(['dp:delivery:manage']);
    const publisher = await t.createToken(['dp:event:publish']);
    const call = (method: string, token: string | undefined, body?: unknown) =>
      fetch(`${t.host.url}${PATH}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await call('GET', reader.token)).status).toBe(200);
    expect((await call('GET', publisher.token)).status).toBe(403);
    expect((await call('GET', undefined)).status).toBe(401);
    expect((await call('PUT', reader.token, { settledEventsDays: 1 })).status).toBe(403);
    expect((await call('PUT', undefined, { settledEventsDays: 1 })).status).toBe(401);
    expect((await call('PUT', manager.token, { settledEventsDays: 3 })).status).toBe(200);
    expect((await t.api.get<Policy>(PATH)).body.settledEventsDays).toBe(3);
  });
});
