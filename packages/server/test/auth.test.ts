// The auth matrix of DECISIONS §4 over real HTTP: API tokens (missing, garbage, expired, revoked),
// every route's scope, the org check, read-only mode, and createdBy → deleted_user on revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, SCOPES, type Scope } from '../src/auth/scopes.js';
import { TokenStore } from '../src/auth/token-store.js';
import { startTestHost, type TestHost } from './support/test-host.js';

interface ErrorBody {
  status: string;
  code: string;
  message: string;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Scopes that each grant access on their own. */
  grantedBy: Scope[] | 'any';
  json?: unknown;
}

const SUB = '/api/v0.9/webhook-subscribers';
const EVENTS = '/api/v0.9/webhook-events';
const PROJECTS = '/api/v1/orgs/default/projects';
const ROUTES: RouteCase[] = [
  { method: 'POST', path: SUB, grantedBy: [SCOPES.subscriberCreate, SCOPES.subscriberManage], json: { displayName: 'x', targetUrl: 'https://example.com/x' } },
  { method: 'GET', path: SUB, grantedBy: [SCOPES.subscriberRead, SCOPES.subscriberManage] },
  { method: 'GET', path: `${SUB}/auth-hook`, grantedBy: [SCOPES.subscriberRead, SCOPES.subscriberManage] },
  { method: 'PUT', path: `${SUB}/auth-hook`, grantedBy: [SCOPES.subscriberUpdate, SCOPES.subscriberManage], json: { displayName: 'y' } },
  { method: 'GET', path: `${SUB}/auth-hook/deliveries`, grantedBy: [SCOPES.subscriberRead, SCOPES.subscriberManage] },
  { method: 'DELETE', path: `${SUB}/no-such-hook`, grantedBy: [SCOPES.subscriberDelete, SCOPES.subscriberManage] },
  { method: 'POST', path: `${SUB}/filter-preview`, grantedBy: [SCOPES.subscriberCreate, SCOPES.subscriberManage], json: { filter: { type: 'a.b' } } },
  { method: 'GET', path: EVENTS, grantedBy: [SCOPES.eventRead] },
  { method: 'GET', path: `${EVENTS}/no-such-event`, grantedBy: [SCOPES.eventRead] },
  { method: 'POST', path: EVENTS, grantedBy: [SCOPES.eventPublish], json: { eventType: 'apikey.generated', aggregateId: 'k1', data: {} } },
  { method: 'POST', path: `${EVENTS}/batch`, grantedBy: [SCOPES.eventPublish], json: { events: [{ eventType: 'apikey.generated', aggregateId: 'k1', data: {} }] } },
  { method: 'POST', path: `${EVENTS}/no-such-event/redeliver`, grantedBy: [SCOPES.deliveryManage] },
  { method: 'POST', path: `${EVENTS}/no-such-event/deliveries/no-such-delivery/retry`, grantedBy: [SCOPES.deliveryManage] },
  { method: 'GET', path: '/api/v1/orgs', grantedBy: 'any' },
  { method: 'GET', path: '/api/v1/orgs/default', grantedBy: 'any' },
  { method: 'GET', path: '/api/v1/me', grantedBy: 'any' },
  { method: 'GET', path: PROJECTS, grantedBy: [SCOPES.projectRead, SCOPES.projectManage] },
  { method: 'POST', path: PROJECTS, grantedBy: [SCOPES.projectManage], json: { displayName: 'P' } },
  { method: 'GET', path: `${PROJECTS}/auth-project`, grantedBy: [SCOPES.projectRead, SCOPES.projectManage] },
  { method: 'PUT', path: `${PROJECTS}/auth-project`, grantedBy: [SCOPES.projectManage], json: { displayName: 'Q' } },
  { method: 'DELETE', path: `${PROJECTS}/no-such-project`, grantedBy: [SCOPES.projectManage] },
];

let t: TestHost;
const issuedTokens: string[] = [];

async function token(scopes: string[], options: { expiresAt?: Date } = {}): Promise<string> {
  const created = await t.createToken(scopes, options);
  issuedTokens.push(created.token);
  return created.token;
}

beforeAll(async () => {
  t = await startTestHost();
  expect((await t.api.post(SUB, { id: 'auth-hook', displayName: 'Auth', targetUrl: 'https://example.com/a' })).status).toBe(201);
  expect((await t.api.post(PROJECTS, { id: 'auth-project', displayName: 'Auth' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('credentials', () => {
  function expect401(response: { status: number; headers: Headers; body: unknown }) {
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  }

  it.each(ROUTES)('$method $path without a token → 401', async (route) => {
    expect401(await t.api.request(route.method, route.path, { token: undefined, json: route.json }));
  });

  it('garbage, malformed and unknown tokens → 401', async () => {
    for (const header of ['Bearer garbage', 'Bearer hrd_' + 'A'.repeat(43), 'Basic dXNlcjpwYXNz', 'Bearer', `Token ${t.adminToken}`, 'Bearer a.b.c']) {
      expect401(await t.api.request('GET', SUB, { token: undefined, headers: { authorization: header } }));
    }
  });

  it('an expired API token → 401', async () => {
    const expired = await token([SCOPES.subscriberRead], { expiresAt: new Date(Date.now() - 1000) });
    expect401(await t.api.get(SUB, { token: expired }));
  });

  it('a revoked API token → 401, and what it created shows createdBy deleted_user', async () => {
    const store = new TokenStore(t.database.db);
    const created = await t.createToken([SCOPES.subscriberManage]);
    issuedTokens.push(created.token);
    const subscriber = await t.api.post<{ createdBy: string }>(SUB, { id: 'made-by-revoked', displayName: 'R', targetUrl: 'https://example.com/r' }, { token: created.token });
    expect(subscriber.status).toBe(201);
    expect(subscriber.body.createdBy).toBe(created.id);
    expect(await store.revoke(created.id)).toBe(true);

    const admin = await t.api.get<{ createdBy: string; updatedBy: string }>(`${SUB}/made-by-revoked`);
    expect(admin.body.createdBy).toBe('deleted_user');
    expect(admin.body.updatedBy).toBe('deleted_user');
    // The host may remember a verified token for up to 5 s; a token never seen before is refused at once.
    const neverUsed = await t.createToken([SCOPES.subscriberRead]);
    issuedTokens.push(neverUsed.token);
    await store.revoke(neverUsed.id);
    expect401(await t.api.get(SUB, { token: neverUsed.token }));
  });

  it('records lastUsedAt of a used token', async () => {
    const used = await t.createToken([SCOPES.subscriberRead]);
    issuedTokens.push(used.token);
    expect((await t.api.get(SUB, { token: used.token })).status).toBe(200);
    await expect.poll(async () => (await new TokenStore(t.database.db).list()).find((info) => info._id === used.id)?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('a use recorded at the moment of a revocation never undoes it (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const raced = await t.createToken([SCOPES.subscriberRead], { name: `raced-${round}` });
      issuedTokens.push(raced.token);
      // A fresh store per side: nothing cached, and this use is the first its store records.
      const [, revoked] = await Promise.all([new TokenStore(t.database.db).findActive(raced.token), new TokenStore(t.database.db).revoke(raced.id)]);
      expect(revoked).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the use is written after its request
      expect(await new TokenStore(t.database.db).findActive(raced.token)).toBeUndefined();
    }
  });
});

describe('scopes', () => {
  it.each(ROUTES.filter((route) => route.grantedBy !== 'any'))('$method $path → 403 without its scope', async (route) => {
    const granted = route.grantedBy as Scope[];
    const others = ALL_SCOPES.filter((scope) => !granted.includes(scope));
    const response = await t.api.request<ErrorBody>(route.method, route.path, { token: await token(others), json: route.json });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
  });

  it.each(ROUTES)('$method $path → passes auth with each granting scope alone', async (route) => {
    const grants = route.grantedBy === 'any' ? [[]] : route.grantedBy.map((scope) => [scope]);
    for (const scopes of grants) {
      const response = await t.api.request(route.method, route.path, { token: await token(scopes), json: route.json });
      expect([401, 403], `${scopes.join(',')} → ${response.status}`).not.toContain(response.status);
    }
  });

  it('the filter preview answers 403 to a dp:event:read token, which could otherwise probe data values GET never returns', async () => {
    await t.api.post(EVENTS, { eventType: 'oracle.test', aggregateId: 'o1', data: { apiKey: 'sk_live_abc' } });
    const probe = { filter: { 'data.apiKey': { $startsWith: 'sk_live_a' } }, events: ['oracle.*'] };
    const reader = await t.api.post<ErrorBody>(`${SUB}/filter-preview`, probe, { token: await token([SCOPES.eventRead]) });
    expect(reader.status).toBe(403);
    expect(reader.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining(SCOPES.subscriberCreate) });
    const creator = await t.api.post<{ list: Array<{ matches: boolean }> }>(`${SUB}/filter-preview`, probe, { token: await token([SCOPES.subscriberCreate]) });
    expect(creator.status).toBe(200);
    expect(creator.body.list[0]!.matches).toBe(true);
  });

  it('the event routes answer 403 to a token without dp:event:read (spec C)', async () => {
    const noEventRead = await token([SCOPES.subscriberManage, SCOPES.eventPublish]);
    for (const path of [EVENTS, `${EVENTS}/any-event`]) {
      const response = await t.api.get<ErrorBody>(path, { token: noEventRead });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
    }
  });
});

describe('organizations', () => {
  it.each(['other-org', 'does-not-exist', 'DEFAULT'])('org %s → the same 403 FORBIDDEN', async (org) => {
    const answers = [];
    for (const path of [`/api/v1/orgs/${org}`, `/api/v1/orgs/${org}/projects`, `/api/v1/orgs/${org}/projects/auth-project`]) {
      const response = await t.api.get<ErrorBody>(path);
      expect(response.status).toBe(403);
      answers.push(response.body);
    }
    const write = await t.api.post<ErrorBody>(`/api/v1/orgs/${org}/projects`, { displayName: 'x' });
    expect(write.status).toBe(403);
    expect(new Set([...answers, write.body].map((body) => JSON.stringify(body))).size).toBe(1);
  });
});

it('never logged a token', () => {
  const logs = t.logs.join('\n');
  for (const issued of [t.adminToken, ...issuedTokens]) expect(logs).not.toContain(issued);
});

describe('read-only mode', () => {
  let readOnly: TestHost;
  beforeAll(async () => {
    readOnly = await startTestHost({ overrides: { readOnly: true } });
  });
  afterAll(async () => {
    await readOnly?.close();
  });

  it.each(ROUTES.filter((route) => route.method !== 'GET'))('$method $path → 403 FORBIDDEN', async (route) => {
    const response = await readOnly.api.request<ErrorBody>(route.method, route.path, { json: route.json });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    expect(response.body.message).toContain('read-only');
  });

  it('reads still work', async () => {
    expect((await readOnly.api.get(SUB)).status).toBe(200);
    expect((await readOnly.api.get(EVENTS)).status).toBe(200);
    expect((await readOnly.api.get('/api/v1/orgs')).status).toBe(200);
  });

  it('nothing was written', async () => {
    expect(await readOnly.database.db.collection('herald_subscribers').countDocuments({})).toBe(0);
    expect(await readOnly.database.db.collection('herald_events').countDocuments({})).toBe(0);
  });
});
