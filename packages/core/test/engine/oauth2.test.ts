// OAuth2 client credentials end to end: createHerald over FerretDB delivering to a real receiver on
// 127.0.0.1 that wants a Bearer token from a real loopback token server; the client secret checked
// on input, sealed at rest, never read back; the token never stored.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ConfigError, createHerald, ValidationError, type OAuth2Input, type WebhookSubscriberCreateRequest } from '../../src/index.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { startTokenServer, type TokenServer } from '../../../../test/support/token-server.js';

const CLIENT_SECRET = 'client-secret-0123456789';

let harness: Harness;
let tokens: TokenServer;
let receiver: Sink;
/** What the receiver accepts: any token the token server issued and has not been revoked. */
const revoked = new Set<string>();

beforeAll(async () => {
  tokens = await startTokenServer();
  receiver = await startSink((request, response) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const ok = bearer !== undefined && tokens.issued.includes(bearer) && !revoked.has(bearer);
    response.writeHead(ok ? 204 : 401).end();
  });
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  await tokens?.close();
});
beforeEach(() => tokens.setHandler(tokens.issue()));

const oauth2 = (extra: Partial<OAuth2Input> = {}): OAuth2Input => ({ tokenUrl: tokens.url, clientId: 'herald-client', clientSecret: CLIENT_SECRET, scope: 'webhooks:receive', audience: 'https://receiver.example', ...extra });

let count = 0;
async function subscribe(extra: Partial<WebhookSubscriberCreateRequest> = {}) {
  count += 1;
  return harness.herald.subscribers.create(scope, { id: `oauth2-${count}`, displayName: `oauth2 ${count}`, targetUrl: receiver.url, events: [`oauth${count}.*`], secret: 'signing-secret-0123456789', oauth2: oauth2(), ...extra });
}
const publish = async (family: string) => (await harness.herald.events.publish(scope, { eventType: `${family}.created`, aggregateId: 'a-1', data: { n: 1 } })).event;
const family = () => `oauth${count}`;
const storedAttempts = (eventId: string) => harness.database.db.collection('herald_delivery_attempts').find({ eventId }).toArray();

describe('deliveries with OAuth2 client credentials', () => {
  test('the Bearer token goes beside the signature; one token request serves many deliveries; reads show no secret', async () => {
    const grantsBefore = tokens.grants.length;
    const receivedBefore = receiver.received.length;
    const created = await subscribe();
    expect(created.oauth2).toEqual({ tokenUrl: tokens.url, clientId: 'herald-client', clientSecretSet: true, scope: 'webhooks:receive', audience: 'https://receiver.example', clientAuthentication: 'basic' });
    expect(JSON.stringify(await harness.herald.subscribers.get(scope, created.id))).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(await harness.herald.subscribers.list(scope, {}))).not.toContain(CLIENT_SECRET);

    const events = [];
    for (let i = 0; i < 3; i += 1) {
      const event = await publish(family());
      events.push(event);
      expect((await eventSettles(harness.herald, event.eventId)).status).toBe('ALL_DELIVERED');
    }
    const grants = tokens.grants.slice(grantsBefore);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      basic: { clientId: 'herald-client', clientSecret: CLIENT_SECRET },
      form: { grant_type: 'client_credentials', scope: 'webhooks:receive', audience: 'https://receiver.example' },
    });
    const received = receiver.received.slice(receivedBefore);
    expect(received).toHaveLength(3);
    for (const request of received) {
      expect(request.headers.authorization).toBe(`Bearer ${tokens.issued.at(-1)}`);
      expect(request.headers['webhook-signature']).toMatch(/^v1,/);
    }
    for (const event of events) {
      const detail = JSON.stringify(await harness.herald.events.get(scope, event.eventId));
      const attempts = JSON.stringify(await storedAttempts(event.eventId));
      for (const text of [detail, attempts]) {
        expect(text).not.toContain(tokens.issued.at(-1));
        expect(text).not.toContain(CLIENT_SECRET);
      }
    }
  });

  test('the client secret is stored sealed under the master key; clientAuthentication body sends it as form fields', async () => {
    const grantsBefore = tokens.grants.length;
    const created = await subscribe({ oauth2: oauth2({ clientAuthentication: 'body', scope: undefined, audience: undefined }) });
    const stored = await harness.database.db.collection('herald_subscribers').findOne({ handle: created.id });
    expect(JSON.stringify(stored)).not.toContain(CLIENT_SECRET);
    expect(stored?.oauth2?.clientSecret).toMatchObject({ keyId: 'k1' });
    expect((await eventSettles(harness.herald, (await publish(family())).eventId)).status).toBe('ALL_DELIVERED');
    const grant = tokens.grants.slice(grantsBefore)[0];
    expect(grant?.headers.authorization).toBeUndefined();
    expect(grant?.form).toEqual({ grant_type: 'client_credentials', client_id: 'herald-client', client_secret: CLIENT_SECRET });
  });

  test('concurrent attempts of one subscriber share one token request', async () => {
    tokens.setHandler(async (grant, response, index) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tokens.issue()(grant, response, index);
    });
    const grantsBefore = tokens.grants.length;
    await subscribe({ maxConcurrency: 5 });
    const events = await Promise.all(Array.from({ length: 5 }, () => publish(family())));
    for (const event of events) expect((await eventSettles(harness.herald, event.eventId)).status).toBe('ALL_DELIVERED');
    expect(tokens.grants.length - grantsBefore).toBe(1);
  });

  test('a token is used until shortly before it expires, then a new one is obtained', async () => {
    tokens.setHandler(tokens.issue(1));
    const grantsBefore = tokens.grants.length;
    await subscribe();
    await eventSettles(harness.herald, (await publish(family())).eventId);
    await eventSettles(harness.herald, (await publish(family())).eventId);
    expect(tokens.grants.length - grantsBefore).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const settled = await eventSettles(harness.herald, (await publish(family())).eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    expect(tokens.grants.length - grantsBefore).toBe(2);
    expect(receiver.received.at(-1)?.headers.authorization).toBe(`Bearer ${tokens.issued.at(-1)}`);
  });

  test('a 401 drops the token, obtains one new token and sends once more within the same attempt', async () => {
    await subscribe();
    await eventSettles(harness.herald, (await publish(family())).eventId);
    const grantsBefore = tokens.grants.length;
    const receivedBefore = receiver.received.length;
    revoked.add(tokens.issued.at(-1)!);
    const settled = await eventSettles(harness.herald, (await publish(family())).eventId);
    expect(settled.deliveries[0]).toMatchObject({ status: 'DELIVERED' });
    expect(settled.deliveries[0]?.attemptHistory).toHaveLength(1);
    expect(tokens.grants.length - grantsBefore).toBe(1);
    const sent = receiver.received.slice(receivedBefore).map((r) => r.headers.authorization);
    expect(sent).toEqual([`Bearer ${[...revoked].at(-1)}`, `Bearer ${tokens.issued.at(-1)}`]);
  });

  test('a receiver that keeps answering 401 gets two sends per attempt, not more; the attempt records the 401', async () => {
    const strict = await startSink(answer(401));
    try {
      await subscribe({ targetUrl: strict.url });
      const event = await publish(family());
      const failing = await eventually(
        () => harness.herald.events.get(scope, event.eventId),
        (detail) => (detail.deliveries[0]?.attemptHistory.length ?? 0) >= 1,
      );
      expect(failing.deliveries[0]?.attemptHistory[0]).toMatchObject({ httpStatus: 401, errorClass: 'HTTP_STATUS' });
      const settled = await eventSettles(harness.herald, event.eventId);
      expect(settled.deliveries[0]?.attemptHistory).toHaveLength(3);
      expect(strict.received).toHaveLength(6);
    } finally {
      await strict.close();
    }
  });

  test('token endpoint failures are attempts of class OAUTH2, retried, delivered once it recovers', async () => {
    tokens.setHandler((_grant, response, index) => {
      const failures = tokens.grants.length - 1 - start;
      if (failures === 0) response.writeHead(500).end(`{"access_token":"leaked-${index}"}`);
      else if (failures === 1) response.writeHead(200, { 'content-type': 'application/json' }).end('not json');
      else void tokens.issue()(_grant, response, index);
    });
    const start = tokens.grants.length;
    await subscribe();
    const settled = await eventSettles(harness.herald, (await publish(family())).eventId);
    const history = settled.deliveries[0]?.attemptHistory ?? [];
    expect(history.map((a) => [a.errorClass, a.httpStatus])).toEqual([['OAUTH2', null], ['OAUTH2', null], [null, 204]]);
    expect(history[0]?.errorMessage).toBe('the token endpoint answered HTTP 500');
    expect(history[1]?.errorMessage).toBe('the token endpoint answered HTTP 200 with a body that is not JSON');
    expect(JSON.stringify(settled)).not.toContain('leaked');
  });

  test('an unreachable token endpoint is OAUTH2 naming the network class', async () => {
    const gone = await startTokenServer();
    await gone.close();
    await subscribe({ oauth2: oauth2({ tokenUrl: gone.url }) });
    const event = await publish(family());
    const failing = await eventually(
      () => harness.herald.events.get(scope, event.eventId),
      (detail) => (detail.deliveries[0]?.attemptHistory.length ?? 0) >= 1,
    );
    expect(failing.deliveries[0]?.attemptHistory[0]).toMatchObject({ errorClass: 'OAUTH2', errorMessage: expect.stringMatching(/^the token endpoint could not be reached: CONNECTION_REFUSED/) });
  });

  test('changed credentials start afresh; null removes them and no Bearer header is sent', async () => {
    const created = await subscribe();
    await eventSettles(harness.herald, (await publish(family())).eventId);
    const grantsBefore = tokens.grants.length;
    const updated = await harness.herald.subscribers.update(scope, created.id, { oauth2: oauth2({ clientId: 'rotated-client', clientSecret: 'rotated-secret-0123456789' }) });
    expect(updated.oauth2?.clientId).toBe('rotated-client');
    await eventSettles(harness.herald, (await publish(family())).eventId);
    expect(tokens.grants.slice(grantsBefore).map((g) => g.basic)).toEqual([{ clientId: 'rotated-client', clientSecret: 'rotated-secret-0123456789' }]);

    const plain = await startSink(answer(204));
    try {
      const removed = await harness.herald.subscribers.update(scope, created.id, { oauth2: null, targetUrl: plain.url });
      expect(removed.oauth2).toBeUndefined();
      const stored = await harness.database.db.collection('herald_subscribers').findOne({ handle: created.id });
      expect(stored?.oauth2).toBeUndefined();
      await eventSettles(harness.herald, (await publish(family())).eventId);
      expect(plain.received.at(-1)?.headers.authorization).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  test('bad credentials are refused by field, without quoting the secret', async () => {
    const refused = subscribe({ oauth2: { tokenUrl: 'http://auth.example.com/token', clientId: '', clientSecret: 'bad\u0007-secret-value', extra: true } as unknown as OAuth2Input });
    await expect(refused).rejects.toThrow(ValidationError);
    const error = (await refused.catch((e: unknown) => e)) as ValidationError;
    expect(error.errors.map((e) => e.field).sort()).toEqual(['oauth2.clientId', 'oauth2.clientSecret', 'oauth2.extra', 'oauth2.tokenUrl']);
    expect(JSON.stringify(error)).not.toContain('bad\u0007-secret-value');
  });

});

describe('OAuth2 credentials and the host', () => {
  test('a Herald without the master key that sealed a stored client secret refuses to start, naming the key id only', async () => {
    const other = await startHarness({ start: false });
    try {
      await other.herald.subscribers.create(scope, { displayName: 'no signing secret', targetUrl: receiver.url, oauth2: oauth2() });
      const starting = createHerald({ mongo: { db: other.database.db }, masterKeys: { current: 'k2', keys: { k2: randomBytes(32).toString('base64') } } });
      await expect(starting).rejects.toThrow(ConfigError);
      await expect(starting).rejects.toThrow('subscribers have OAuth2 client secrets sealed with master key "k1", which is not configured');
      await expect(starting).rejects.not.toThrow(CLIENT_SECRET);
    } finally {
      await other.close();
    }
  });

  test('the token URL passes the SSRF guard at send time: a loopback token endpoint without the allow-list is OAUTH2, never called', async () => {
    const guarded = await startHarness({ delivery: { ssrfAllowList: [] } });
    try {
      const grantsBefore = tokens.grants.length;
      await guarded.herald.subscribers.create(scope, { displayName: 'guarded', targetUrl: receiver.url, events: ['guarded.*'], oauth2: oauth2() });
      const event = (await guarded.herald.events.publish(scope, { eventType: 'guarded.created', aggregateId: 'a-1', data: { n: 1 } })).event;
      const failing = await eventually(
        () => guarded.herald.events.get(scope, event.eventId),
        (detail) => (detail.deliveries[0]?.attemptHistory.length ?? 0) >= 1,
      );
      expect(failing.deliveries[0]?.attemptHistory[0]).toMatchObject({ errorClass: 'OAUTH2', errorMessage: expect.stringContaining('SSRF_BLOCKED') });
      expect(tokens.grants.length).toBe(grantsBefore);
    } finally {
      await guarded.close();
    }
  });
});
