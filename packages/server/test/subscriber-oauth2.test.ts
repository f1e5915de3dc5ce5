// A subscriber's OAuth2 client credentials over the HTTP API: accepted and described, the client
// secret never in a response or a log line, bad input refused with a field-level 400, removal with null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/auth/scopes.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
const CLIENT_SECRET = 'oauth2-client-secret-value-42';
let t: TestHost;

interface ErrorBody {
  code: string;
  errors?: Array<{ field: string; message: string }>;
}

beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

const oauth2 = (extra: Record<string, unknown> = {}) => ({ tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'herald', clientSecret: CLIENT_SECRET, ...extra });
let count = 0;
const body = (extra: Record<string, unknown>) => {
  count += 1;
  return { id: `oauth2-${count}`, displayName: 'OAuth2', targetUrl: 'https://example.com/hook', ...extra };
};

describe('oauth2 on subscribers', () => {
  it('create answers everything but the secret; reads and lists never carry it; logs neither', async () => {
    const created = await t.api.post<{ id: string; oauth2: Record<string, unknown> }>(BASE, body({ oauth2: oauth2({ scope: 'hooks:receive', audience: 'https://example.com' }) }));
    expect(created.status).toBe(201);
    expect(created.body.oauth2).toEqual({
      tokenUrl: 'https://auth.example.com/oauth/token',
      clientId: 'herald',
      clientSecretSet: true,
      scope: 'hooks:receive',
      audience: 'https://example.com',
      clientAuthentication: 'basic',
    });
    const read = await t.api.get(`${BASE}/${created.body.id}`);
    const listed = await t.api.get(`${BASE}?limit=100`);
    expect(read.text).toContain('"clientSecretSet":true');
    for (const text of [created.text, read.text, listed.text, t.logs.join('\n')]) expect(text).not.toContain(CLIENT_SECRET);
  });

  it('PUT replaces the credentials as a whole and null removes them', async () => {
    const { body: created } = await t.api.post<{ id: string }>(BASE, body({ oauth2: oauth2({ scope: 'a' }) }));
    const replaced = await t.api.put<{ oauth2: Record<string, unknown> }>(`${BASE}/${created.id}`, { oauth2: oauth2({ clientId: 'next', clientAuthentication: 'body' }) });
    expect(replaced.status).toBe(200);
    expect(replaced.body.oauth2).toEqual({ tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'next', clientSecretSet: true, clientAuthentication: 'body' });
    const removed = await t.api.put<Record<string, unknown>>(`${BASE}/${created.id}`, { oauth2: null });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty('oauth2');
  });

  it.each([
    ['wrong types', { tokenUrl: 42, clientId: true, clientSecret: [] }, undefined],
    ['a missing client secret', { tokenUrl: 'https://auth.example.com/t', clientId: 'x' }, undefined],
    ['a missing token URL', { clientId: 'x', clientSecret: CLIENT_SECRET }, undefined],
    ['an unknown field', oauth2({ grantType: 'password' }), undefined],
    ['an oversize client secret', oauth2({ clientSecret: 's'.repeat(1025) }), undefined],
    ['an oversize scope', oauth2({ scope: 's'.repeat(1025) }), undefined],
    ['an unknown client authentication', oauth2({ clientAuthentication: 'jwt' }), undefined],
    ['a string instead of an object', 'https://auth.example.com/t', undefined],
    ['a plain http token URL off this machine', oauth2({ tokenUrl: 'http://auth.example.com/t' }), 'oauth2.tokenUrl'],
    ['a token URL with user info', oauth2({ tokenUrl: 'https://u:p@auth.example.com/t' }), 'oauth2.tokenUrl'],
    ['a client secret with a control character', oauth2({ clientSecret: `${CLIENT_SECRET}\u0007` }), 'oauth2.clientSecret'],
  ])('refuses %s with 400, never echoing the secret', async (_name, value, field) => {
    const response = await t.api.post<ErrorBody>(BASE, body({ oauth2: value }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    if (field) expect(response.body.errors?.map((e) => e.field)).toContain(field);
    expect(response.text).not.toContain(CLIENT_SECRET);
  });

  it('nothing is stored when the credentials are refused', async () => {
    const id = `oauth2-refused-${count}`;
    expect((await t.api.post(BASE, { id, displayName: 'x', targetUrl: 'https://example.com/', oauth2: oauth2({ tokenUrl: 'http://auth.example.com/t' }) })).status).toBe(400);
    expect(await t.database.db.collection('herald_subscribers').countDocuments({ handle: id })).toBe(0);
  });

  it('without the manage scope, or without a token, credentials cannot be set', async () => {
    const reader = await t.createToken([SCOPES.subscriberRead]);
    expect((await t.api.withToken(reader.token).post(BASE, body({ oauth2: oauth2() }))).status).toBe(403);
    expect((await t.api.withToken(undefined).post(BASE, body({ oauth2: oauth2() }))).status).toBe(401);
  });
});
