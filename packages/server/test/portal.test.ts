// The consumer portal over real HTTP on FerretDB: making a link (auth, scope, bad input), spending
// its code once, and what the session may reach — only its tenant's subscribers, events and
// deliveries, only the subscriber-facing operations — plus the portal page's framing policy.
import { createHerald, type Herald } from '@herald/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { PORTAL_LINKS_COLLECTION, PORTAL_SESSIONS_COLLECTION } from '../src/portal/portal-store.js';
import { problemsOf } from './support/config-problems.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const API = '/api/v0.9';
const LINKS = `${API}/portal-links`;
const SESSIONS = `${API}/portal-sessions`;
const OTHER_ORG = 'other-tenant';

interface ErrorBody {
  status: string;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}
interface LinkBody {
  url: string;
  orgId: string;
  expiresAt: string;
}
interface SessionBody {
  token: string;
  orgId: string;
  scopes: string[];
  expiresAt: string;
  branding: { name: string; color?: string };
}

let t: TestHost;
let other: Herald;
let otherEventId: string;
let otherDeliveryId: string;
let ownEventId: string;
let ownDeliveryId: string;

function codeOf(url: string): string {
  const code = new URL(url, 'http://x').hash.replace(/^#code=/, '');
  expect(code).toMatch(/^hpl_/);
  return code;
}

async function newSession(): Promise<SessionBody> {
  const link = await t.api.post<LinkBody>(LINKS, {});
  expect(link.status).toBe(201);
  const session = await t.api.post<SessionBody>(SESSIONS, { code: codeOf(link.body.url) }, { token: undefined });
  expect(session.status).toBe(201);
  return session.body;
}

beforeAll(async () => {
  t = await startTestHost({
    overrides: {
      publicBaseUrl: 'https://herald.example.test',
      portalName: 'Acme Payments',
      portalColor: '#0b7285',
      portalFrameAncestors: ['https://app.acme.example', 'https://*.acme.example'],
      eventTypes: [
        { type: 'order.paid', description: 'An order was paid.', example: { total: 42 } },
        { type: 'order.refunded', description: 'No example for this one.' },
      ],
    },
  });
  // Another tenant's data in the same store, written through core as an embedder would.
  other = await createHerald({ mongo: { db: t.database.db }, masterKeys: t.config.masterKeys });
  await other.subscribers.create({ orgId: OTHER_ORG }, { id: 'theirs', displayName: 'Theirs', targetUrl: 'https://example.com/theirs' });
  const theirs = await other.events.publish({ orgId: OTHER_ORG }, { eventType: 'order.paid', aggregateId: 'o-1', data: { total: 1 } });
  otherEventId = theirs.event.eventId;
  otherDeliveryId = (await other.events.get({ orgId: OTHER_ORG }, otherEventId)).deliveries[0]!.deliveryId;

  expect((await t.api.post(`${API}/webhook-subscribers`, { id: 'ours', displayName: 'Ours', targetUrl: 'https://example.com/ours' })).status).toBe(201);
  const ours = await t.api.post<{ eventId: string }>(`${API}/webhook-events`, { eventType: 'order.paid', aggregateId: 'o-2', data: { total: 2 } });
  ownEventId = ours.body.eventId;
  const detail = await t.api.get<{ deliveries: Array<{ deliveryId: string }> }>(`${API}/webhook-events/${ownEventId}`);
  ownDeliveryId = detail.body.deliveries[0]!.deliveryId;
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

describe('POST /portal-links', () => {
  it('makes a single-use link under the public URL, stored only as a hash', async () => {
    const before = Date.now();
    const link = await t.api.post<LinkBody>(LINKS, { expiresInSeconds: 120 });
    expect(link.status).toBe(201);
    expect(link.headers.get('cache-control')).toBe('no-store');
    expect(link.body.url).toMatch(/^https:\/\/herald\.example\.test\/console\/portal\/#code=hpl_[A-Za-z0-9_-]{43}$/);
    expect(link.body.orgId).toBe('default');
    const expiresAt = Date.parse(link.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 119_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 121_000);
    const code = codeOf(link.body.url);
    const stored = await t.database.db.collection(PORTAL_LINKS_COLLECTION).find({}).toArray();
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(t.logs.join('\n')).not.toContain(code);
  });

  it('defaults: no body, this org, 10 minutes', async () => {
    const link = await t.api.request<LinkBody>('POST', LINKS);
    expect(link.status).toBe(201);
    const ttl = Date.parse(link.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('401 without or with a bad token; 403 without dp:portal_link:create', async () => {
    const none = await t.api.post<ErrorBody>(LINKS, {}, { token: undefined });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    expect((await t.api.post(LINKS, {}, { token: 'hrd_nope' })).status).toBe(401);
    const reader = await t.createToken(['dp:webhook_subscriber:manage', 'dp:event:read', 'dp:delivery:manage']);
    const refused = await t.api.post<ErrorBody>(LINKS, {}, { token: reader.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    expect(refused.body.message).toContain('dp:portal_link:create');
    const sender = await t.createToken(['dp:portal_link:create']);
    expect((await t.api.post(LINKS, {}, { token: sender.token })).status).toBe(201);
  });

  it('400 for wrong types, out-of-bounds expiry, unknown fields and bad org handles', async () => {
    const cases: Array<[unknown, string]> = [
      [{ expiresInSeconds: '600' }, 'expiresInSeconds'],
      [{ expiresInSeconds: 59 }, 'expiresInSeconds'],
      [{ expiresInSeconds: 86_401 }, 'expiresInSeconds'],
      [{ expiresInSeconds: 60.5 }, 'expiresInSeconds'],
      [{ orgId: 42 }, 'orgId'],
      [{ orgId: '../x' }, 'orgId'],
      [{ branding: { name: 'x' } }, 'branding'],
    ];
    for (const [body, field] of cases) {
      const response = await t.api.post<ErrorBody>(LINKS, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
      expect(response.body.errors?.map((error) => error.field), JSON.stringify(body)).toContain(field);
    }
    expect((await t.api.request<ErrorBody>('POST', LINKS, { rawBody: '[]', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.api.request<ErrorBody>('POST', `${LINKS}?org=x`, { json: {} })).status).toBe(400);
  });

  it('413 for an oversize body, 415 for a body that is not JSON', async () => {
    const big = await t.api.post<ErrorBody>(LINKS, { orgId: 'default', pad: 'x'.repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    const text = await t.api.request<ErrorBody>('POST', LINKS, { rawBody: 'orgId=default', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('403 for another org, known or not, the same answer', async () => {
    const foreign = await t.api.post<ErrorBody>(LINKS, { orgId: OTHER_ORG });
    const unknown = await t.api.post<ErrorBody>(LINKS, { orgId: 'no-such-org' });
    expect(foreign.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(foreign.body).toEqual(unknown.body);
    expect((await t.api.post(LINKS, { orgId: 'default' })).status).toBe(201);
  });
});

describe('POST /portal-sessions', () => {
  it('opens a session once: the same code again is 410, and the session is branded and confined', async () => {
    const link = await t.api.post<LinkBody>(LINKS, {});
    const code = codeOf(link.body.url);
    const first = await t.api.post<SessionBody>(SESSIONS, { code }, { token: undefined });
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body.token).toMatch(/^hps_[A-Za-z0-9_-]{43}$/);
    expect(first.body.orgId).toBe('default');
    expect(first.body.branding).toEqual({ name: 'Acme Payments', color: '#0b7285' });
    expect(first.body.scopes).toEqual(['dp:delivery:manage', 'dp:event:publish', 'dp:event:read', 'dp:webhook_subscriber:read', 'dp:webhook_subscriber:update']);
    const ttl = Date.parse(first.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);

    const again = await t.api.post<ErrorBody>(SESSIONS, { code }, { token: undefined });
    expect(again.status).toBe(410);
    expect(again.body).toEqual({ status: 'error', code: 'GONE', message: 'This portal link was already used: ask the sender for a new one' });

    const sessions = await t.database.db.collection(PORTAL_SESSIONS_COLLECTION).find({}).toArray();
    expect(JSON.stringify(sessions)).not.toContain(first.body.token);
    expect(t.logs.join('\n')).not.toContain(first.body.token);
  });

  it('exchanges of one code at once: exactly one session, every time', async () => {
    for (let round = 0; round < 5; round++) {
      const link = await t.api.post<LinkBody>(LINKS, {});
      const code = codeOf(link.body.url);
      const answers = await Promise.all(Array.from({ length: 6 }, () => t.api.post(SESSIONS, { code }, { token: undefined })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 410, 410, 410, 410, 410]);
    }
  });

  it('410 for an expired code, 401 for an unknown or malformed one', async () => {
    const link = await t.api.post<LinkBody>(LINKS, {});
    const code = codeOf(link.body.url);
    await t.database.db.collection(PORTAL_LINKS_COLLECTION).updateOne({ usedAt: null, expiresAt: new Date(link.body.expiresAt) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await t.api.post<ErrorBody>(SESSIONS, { code }, { token: undefined });
    expect(expired.status).toBe(410);
    expect(expired.body.message).toBe('This portal link has expired: ask the sender for a new one');

    const unknown = await t.api.post<ErrorBody>(SESSIONS, { code: `hpl_${'A'.repeat(43)}` }, { token: undefined });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ status: 'error', code: 'UNAUTHORIZED', message: 'Unknown portal link code' });
    expect((await t.api.post(SESSIONS, { code: 'hrd_not-a-code' }, { token: undefined })).status).toBe(401);
  });

  it('400 for a missing, mistyped or oversize code and unknown fields', async () => {
    for (const body of [{}, { code: 7 }, { code: '' }, { code: 'x'.repeat(201) }, { code: `hpl_${'A'.repeat(43)}`, orgId: OTHER_ORG }]) {
      const response = await t.api.post<ErrorBody>(SESSIONS, body, { token: undefined });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    }
    expect((await t.api.request('POST', SESSIONS, { token: undefined })).status).toBe(400);
  });

  it('400 naming the code for a NUL character in it, as its schema says (OpenAPI `pattern`)', async () => {
    const response = await t.api.post<ErrorBody>(SESSIONS, { code: 'hpl_\u0000' }, { token: undefined });
    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual({ field: 'code', message: 'must not contain NUL characters' });
  });
});

describe('a portal session', () => {
  it('reads and acts on its own tenant: subscribers, deliveries, events, retry, secret rotation, filters', async () => {
    const session = await newSession();
    const token = session.token;
    const me = await t.api.get<{ kind: string; orgId: string; principal: string }>('/api/v1/me', { token });
    expect(me.body).toMatchObject({ kind: 'portal', orgId: 'default' });
    const list = await t.api.get<{ list: Array<{ id: string }> }>(`${API}/webhook-subscribers`, { token });
    expect(list.status).toBe(200);
    expect(list.body.list.map((item) => item.id)).toEqual(['ours']);
    expect((await t.api.get(`${API}/webhook-subscribers/ours`, { token })).status).toBe(200);
    expect((await t.api.get(`${API}/webhook-subscribers/ours/deliveries`, { token })).status).toBe(200);
    const rotated = await t.api.put<{ hasSecret: boolean; updatedBy: string }>(`${API}/webhook-subscribers/ours`, { secret: 'whsec_portal-rotated-secret-1' }, { token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.hasSecret).toBe(true);
    expect(rotated.body.updatedBy).toBe(me.body.principal);
    expect(me.body.principal).toMatch(/^prt_[0-9a-f]{12}$/);
    const filtered = await t.api.put<{ filter?: unknown }>(`${API}/webhook-subscribers/ours`, { filter: { 'data.total': { $gte: 1 } } }, { token });
    expect(filtered.body.filter).toEqual({ 'data.total': { $gte: 1 } });
    const events = await t.api.get<{ list: Array<{ eventId: string }> }>(`${API}/webhook-events`, { token });
    expect(events.body.list.map((event) => event.eventId)).toContain(ownEventId);
    expect(events.body.list.map((event) => event.eventId)).not.toContain(otherEventId);
    expect((await t.api.get(`${API}/webhook-events/${ownEventId}`, { token })).status).toBe(200);
    expect((await t.api.post(`${API}/webhook-events/${ownEventId}/deliveries/${ownDeliveryId}/retry`, undefined, { token })).status).toBe(200);
    expect((await t.api.get(`${API}/webhook-event-types`, { token })).status).toBe(200);
    expect(JSON.stringify(t.logs)).not.toContain('whsec_portal-rotated-secret-1');
  });

  it("sends a test event: the catalog type's example, to its own tenant's subscribers", async () => {
    const { token } = await newSession();
    const sent = await t.api.request<{ eventId: string; eventType: string; orgId: string; aggregateType: string; aggregateId: string }>(
      'POST',
      `${API}/webhook-event-types/order.paid/test`,
      { token },
    );
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ eventType: 'order.paid', orgId: 'default', aggregateType: 'test' });
    expect(sent.body.aggregateId).toMatch(/^test-[0-9a-f]{12}$/);
    expect(sent.headers.get('location')).toBe(`https://herald.example.test${API}/webhook-events/${sent.body.eventId}`);
    const detail = await t.api.get<{ deliveries: Array<{ subscriberId: string }> }>(`${API}/webhook-events/${sent.body.eventId}`, { token });
    expect(detail.body.deliveries.map((row) => row.subscriberId)).toEqual(['ours']);
    // Nothing reached the other tenant (whose list may hold Herald's own herald.* events by now).
    const theirs = await other.events.list({ orgId: OTHER_ORG }, { limit: 100 });
    expect(theirs.list.filter((event) => event.aggregateType === 'test')).toEqual([]);

    const unknown = await t.api.post<ErrorBody>(`${API}/webhook-event-types/order.shipped/test`, {}, { token });
    expect(unknown.status).toBe(404);
    const noExample = await t.api.post<ErrorBody>(`${API}/webhook-event-types/order.refunded/test`, {}, { token });
    expect(noExample.status).toBe(400);
    expect(noExample.body.errors).toEqual([{ field: 'type', message: "has no example in the host's catalog (eventTypes[].example), so there is nothing to send" }]);
    const fields = await t.api.post<ErrorBody>(`${API}/webhook-event-types/order.paid/test`, { data: { total: 1 } }, { token });
    expect(fields.status).toBe(400);
    expect(fields.body.errors?.map((error) => error.field)).toContain('data');
    expect((await t.api.post(`${API}/webhook-event-types/Not%20A%20Type/test`, {}, { token })).status).toBe(400);
    const operational = await t.api.post<ErrorBody>(`${API}/webhook-event-types/herald.delivery_stalled/test`, {}, { token });
    expect(operational.status).toBe(400);
    expect((await t.api.post(`${API}/webhook-event-types/order.paid/test`, {}, { token: undefined })).status).toBe(401);
    const reader = await t.createToken(['dp:event:read']);
    expect((await t.api.post(`${API}/webhook-event-types/order.paid/test`, {}, { token: reader.token })).status).toBe(403);
  });

  it("cannot reach another tenant's subscriber, event or delivery by id or by list", async () => {
    const { token } = await newSession();
    const subscriber = await t.api.get<ErrorBody>(`${API}/webhook-subscribers/theirs`, { token });
    expect(subscriber.status).toBe(404);
    expect(subscriber.body.code).toBe('ORG_NOT_FOUND');
    expect((await t.api.get(`${API}/webhook-subscribers/theirs/deliveries`, { token })).status).toBe(404);
    expect((await t.api.put(`${API}/webhook-subscribers/theirs`, { enabled: false }, { token })).status).toBe(404);
    expect((await t.api.get(`${API}/webhook-events/${otherEventId}`, { token })).status).toBe(404);
    expect((await t.api.post(`${API}/webhook-events/${otherEventId}/redeliver`, undefined, { token })).status).toBe(404);
    expect((await t.api.post(`${API}/webhook-events/${otherEventId}/deliveries/${otherDeliveryId}/retry`, undefined, { token })).status).toBe(404);
    const listed = await t.api.get<{ list: Array<{ id: string }> }>(`${API}/webhook-subscribers?limit=100&listeners=true`, { token });
    expect(listed.body.list.map((item) => item.id)).not.toContain('theirs');
    // By URL: the management API names orgs in its paths; the portal reaches none of it.
    expect((await t.api.get<ErrorBody>(`/api/v1/orgs/${OTHER_ORG}/projects`, { token })).status).toBe(403);
    // The other tenant's data is still there: the refusals were the session's confinement.
    expect((await other.subscribers.get({ orgId: OTHER_ORG }, 'theirs')).id).toBe('theirs');
  });

  it('a session whose stored tenant is not this instance org is refused everywhere', async () => {
    const { token } = await newSession();
    await t.database.db.collection(PORTAL_SESSIONS_COLLECTION).updateMany({}, { $set: { orgId: OTHER_ORG } });
    const refused = await t.api.get<ErrorBody>(`${API}/webhook-subscribers`, { token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('The portal session belongs to another organization');
    await t.database.db.collection(PORTAL_SESSIONS_COLLECTION).updateMany({}, { $set: { orgId: 'default' } });
  });

  it('is refused every operation that is not subscriber-facing, whatever its scopes allow', async () => {
    const { token } = await newSession();
    const refusals: Array<[string, string, unknown?]> = [
      ['POST', `${API}/webhook-subscribers`, { id: 'new', displayName: 'New', targetUrl: 'https://example.com/new' }],
      ['DELETE', `${API}/webhook-subscribers/ours`],
      ['POST', `${API}/webhook-subscribers/ours/recover`, { since: new Date(0).toISOString() }],
      ['POST', `${API}/webhook-subscribers/filter-preview`, { events: ['*'] }],
      ['POST', `${API}/webhook-events`, { eventType: 'order.paid', aggregateId: 'x', data: {} }],
      ['POST', `${API}/webhook-events/batch`, { events: [] }],
      ['DELETE', `${API}/webhook-events/${ownEventId}?force=true`],
      ['GET', `${API}/webhook-retention`],
      ['PUT', `${API}/webhook-retention`, {}],
      ['POST', LINKS, {}],
      ['GET', '/api/v1/orgs'],
      ['GET', '/api/v1/orgs/default/projects'],
    ];
    for (const [method, path, json] of refusals) {
      const response = await t.api.request<ErrorBody>(method, path, { token, ...(json === undefined ? {} : { json }) });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body, `${method} ${path}`).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
    }
    expect((await t.api.get(`${API}/webhook-subscribers/ours`, { token })).status).toBe(200);
  });

  it('401 once expired', async () => {
    const { token } = await newSession();
    await t.database.db.collection(PORTAL_SESSIONS_COLLECTION).updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await t.api.get<ErrorBody>(`${API}/webhook-subscribers`, { token });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe('Invalid or expired portal session: open a new portal link');
  });
});

describe('a read-only instance', () => {
  it('refuses to make a link and to open one (each writes)', async () => {
    const readOnly = await startTestHost({ database: t.database, overrides: { readOnly: true } });
    try {
      const link = await t.api.post<LinkBody>(LINKS, {});
      const made = await readOnly.api.post<ErrorBody>(LINKS, {}, { token: t.adminToken });
      expect(made.status).toBe(403);
      expect(made.body.message).toBe('The instance is in read-only mode');
      const opened = await readOnly.api.post<ErrorBody>(SESSIONS, { code: codeOf(link.body.url) }, { token: undefined });
      expect(opened.status).toBe(403);
      expect(opened.body).toEqual({ status: 'error', code: 'FORBIDDEN', message: 'The instance is in read-only mode' });
      // Unspent: the writable instance still opens it.
      expect((await t.api.post(SESSIONS, { code: codeOf(link.body.url) }, { token: undefined })).status).toBe(201);
    } finally {
      await readOnly.close();
    }
  });
});

describe('the portal page', () => {
  it('may be framed by the configured origins; the console stays unframeable', async () => {
    const portal = await fetch(`${t.host.url}/console/portal/`);
    const console = await fetch(`${t.host.url}/console/`);
    // Served whether or not the console is built: the headers are the plugin's either way.
    const portalCsp = portal.headers.get('content-security-policy') ?? '';
    expect(portalCsp).toContain('frame-ancestors https://app.acme.example https://*.acme.example');
    expect(portalCsp).not.toContain("frame-ancestors 'none'");
    expect(portalCsp).toContain("script-src 'self'");
    expect(console.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const redirect = await fetch(`${t.host.url}/console/portal`, { redirect: 'manual' });
    expect([301, 503]).toContain(redirect.status);
  });
});

describe('portal configuration', () => {
  const env = { HERALD_MONGODB_URI: 'mongodb://127.0.0.1:27017' };

  it('reads name, colour and frame ancestors (space- or comma-separated); frame-ancestors defaults to self', () => {
    const config = loadConfig({
      env: { ...env, HERALD_PORTAL_NAME: 'Acme', HERALD_PORTAL_COLOR: '#AbCdEf', HERALD_PORTAL_FRAME_ANCESTORS: "'self' https://app.acme.example,https://*.acme.example:8443" },
    });
    expect(config).toMatchObject({ portalName: 'Acme', portalColor: '#AbCdEf', portalFrameAncestors: ["'self'", 'https://app.acme.example', 'https://*.acme.example:8443'] });
    expect(loadConfig({ env }).portalFrameAncestors).toEqual(["'self'"]);
  });

  it.each([
    ['HERALD_PORTAL_COLOR', 'red'],
    ['HERALD_PORTAL_COLOR', '#fff'],
    ['HERALD_PORTAL_COLOR', '#12345g'],
    ['HERALD_PORTAL_NAME', 'x'.repeat(81)],
    ['HERALD_PORTAL_NAME', 'Acme\u0007'],
    ['HERALD_PORTAL_FRAME_ANCESTORS', '*'],
    ['HERALD_PORTAL_FRAME_ANCESTORS', 'https://app.example.com/path'],
    ['HERALD_PORTAL_FRAME_ANCESTORS', "https://ok.example 'unsafe-inline'"],
    ['HERALD_PORTAL_FRAME_ANCESTORS', 'javascript:alert(1)'],
    ['HERALD_PORTAL_FRAME_ANCESTORS', 'https://a.example;script-src *'],
    ['HERALD_PORTAL_FRAME_ANCESTORS', "'none' https://a.example"],
  ])('%s=%j is a configuration error naming the variable', (name, value) => {
    expect(problemsOf(() => loadConfig({ env: { ...env, [name]: value } })).join('\n')).toContain(name);
  });
});
