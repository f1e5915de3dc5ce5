// The engine end to end through a real loopback CONNECT proxy: createHerald over FerretDB with
// `delivery.egressProxy`/`egressProxies`, real receivers on 127.0.0.1, subscribers choosing routes.
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, createHerald, ValidationError } from '../../src/index.js';
import { startConnectProxy, type ConnectProxy } from '../../../../test/support/connect-proxy.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

const WHSEC = `whsec_${Buffer.from('egress-test-key-32-bytes-long!!!').toString('base64')}`;
let harness: Harness;
let receiver: Sink;
let proxy: ConnectProxy;
let eu: ConnectProxy;
/** Configured as `flaky`, down until a test brings it up. */
let flaky: ConnectProxy;

let family = 0;
async function subscribe(extra: { egressProxy?: string; targetUrl?: string } = {}) {
  family += 1;
  const subscriber = await harness.herald.subscribers.create(scope, {
    displayName: `egress ${family}`,
    targetUrl: extra.targetUrl ?? receiver.url,
    secret: WHSEC,
    events: [`egress${family}.*`],
    ...(extra.egressProxy !== undefined ? { egressProxy: extra.egressProxy } : {}),
  });
  const publish = async () => (await harness.herald.events.publish(scope, { eventType: `egress${family}.created`, aggregateId: 'a-1', data: { n: family } })).event;
  return { subscriber, publish };
}

const asked = (server: ConnectProxy): string[] => server.connects.map((c) => c.authority);

beforeAll(async () => {
  [receiver, proxy, eu, flaky] = await Promise.all([startSink(answer(204)), startConnectProxy(), startConnectProxy(), startConnectProxy()]);
  await flaky.stop();
  harness = await startHarness({
    delivery: {
      egressProxy: proxy.url,
      egressProxies: { eu: eu.url, flaky: flaky.url },
      retrySchedule: [300],
      maxAttempts: 20,
      breaker: false,
    },
  });
});
afterAll(async () => {
  await harness.close();
  await Promise.all([receiver.close(), proxy.stop(), eu.stop(), flaky.stop()]);
});

describe('deliveries through the egress proxy', () => {
  test('by default every delivery goes through HERALD_EGRESS_PROXY, signed, to the address Herald checked', async () => {
    const { subscriber, publish } = await subscribe();
    expect(subscriber).not.toHaveProperty('egressProxy');
    const before = receiver.received.length;
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    expect(settled.deliveries[0]?.attemptHistory).toMatchObject([{ attempt: 1, httpStatus: 204, errorClass: null }]);
    expect(asked(proxy)).toContain(`127.0.0.1:${receiver.port}`);
    const request = receiver.received.slice(before).find((r) => r.headers['webhook-id'] === event.eventId);
    expect(request).toBeDefined();
    expect((verify(request!.headers as Record<string, string>, request!.body, WHSEC).payload as { type: string }).type).toBe(`egress${family}.created`);
  });

  test('a subscriber may go direct (none) or through a named proxy, and return to the default with null', async () => {
    const direct = await subscribe({ egressProxy: 'none' });
    expect(direct.subscriber.egressProxy).toBe('none');
    const counts = { proxy: proxy.connects.length, eu: eu.connects.length };
    expect((await eventSettles(harness.herald, (await direct.publish()).eventId)).status).toBe('ALL_DELIVERED');
    // A pool may keep its tunnel; what matters is that no new CONNECT was asked of either proxy.
    expect([proxy.connects.length, eu.connects.length]).toEqual([counts.proxy, counts.eu]);

    const viaEu = await harness.herald.subscribers.update(scope, direct.subscriber.id, { egressProxy: 'eu' });
    expect(viaEu.egressProxy).toBe('eu');
    expect((await eventSettles(harness.herald, (await direct.publish()).eventId)).status).toBe('ALL_DELIVERED');
    expect(asked(eu).slice(counts.eu)).toEqual([`127.0.0.1:${receiver.port}`]);

    const back = await harness.herald.subscribers.update(scope, direct.subscriber.id, { egressProxy: null });
    expect(back).not.toHaveProperty('egressProxy');
    expect((await harness.herald.subscribers.get(scope, direct.subscriber.id))).not.toHaveProperty('egressProxy');
  });

  test('proxy down: attempts fail with class PROXY and are retried; delivered once the proxy is back', async () => {
    const { publish } = await subscribe({ egressProxy: 'flaky' });
    const event = await publish();
    const failing = await eventually(
      () => harness.herald.events.get(scope, event.eventId),
      (detail) => (detail.deliveries[0]?.attemptHistory.length ?? 0) >= 2,
    );
    const row = failing.deliveries[0]!;
    expect(['PENDING', 'IN_FLIGHT']).toContain(row.status);
    expect(row.attemptHistory[0]).toMatchObject({ httpStatus: null, errorClass: 'PROXY', errorMessage: `egress proxy ${flaky.url.slice(7)} unreachable: ECONNREFUSED` });
    expect(row.lastError).toMatch(/PROXY/);

    await flaky.start();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    const history = settled.deliveries[0]!.attemptHistory;
    expect(history.at(-1)).toMatchObject({ httpStatus: 204, errorClass: null });
    expect(history.slice(0, -1).every((attempt) => attempt.errorClass === 'PROXY')).toBe(true);
    expect(asked(flaky)).toEqual([`127.0.0.1:${receiver.port}`]);
  });
});

describe('subscriber input', () => {
  const create = (egressProxy: unknown) =>
    harness.herald.subscribers.create(scope, { displayName: 'bad', targetUrl: receiver.url, egressProxy } as never);

  test.each([
    ['ap', 'no egress proxy named "ap" is configured; the names are "none", "eu", "flaky"'],
    ['http://proxy:3128', 'must be the name of a configured egress proxy (1–63 of a-z, 0-9, "-") or "none"; proxy URLs are operator configuration'],
    ['EU', 'must be the name of a configured egress proxy (1–63 of a-z, 0-9, "-") or "none"; proxy URLs are operator configuration'],
    [42, 'must be a string'],
    [null, 'must be a string'],
    ['a'.repeat(64), 'must be at most 63 characters'],
  ])('egressProxy %j is refused', async (value, message) => {
    const error = await create(value).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual([{ field: 'egressProxy', message }]);
  });

  test('an update to an unknown name is refused and changes nothing', async () => {
    const { subscriber } = await subscribe({ egressProxy: 'eu' });
    const error = await harness.herald.subscribers.update(scope, subscriber.id, { egressProxy: 'nowhere' }).catch((caught: unknown) => caught);
    expect((error as ValidationError).errors).toEqual([{ field: 'egressProxy', message: 'no egress proxy named "nowhere" is configured; the names are "none", "eu", "flaky"' }]);
    expect((await harness.herald.subscribers.get(scope, subscriber.id)).egressProxy).toBe('eu');
  });

  test('a bad proxy URL is a ConfigError before connecting, without the URL (it may hold a password)', async () => {
    const attempt = createHerald({ mongo: { uri: 'mongodb://127.0.0.1:1/never' }, delivery: { egressProxy: 'https://u:s3cret@proxy:3128' } });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^delivery.egressProxy: https:\/\/ proxies are not supported/);
    expect((error as Error).message).not.toContain('s3cret');
  });
});

describe('the SSRF guard still holds with a proxy', () => {
  test('a target whose name resolves to a loopback address is FAILED as SSRF_BLOCKED and the proxy is never asked', async () => {
    const guarded = await startHarness({ delivery: { egressProxy: proxy.url, ssrfAllowList: [] } });
    try {
      const before = proxy.connects.length;
      await guarded.herald.subscribers.create(scope, { displayName: 'internal', targetUrl: `http://localhost:${receiver.port}/hook`, events: ['internal.*'] });
      const { event } = await guarded.herald.events.publish(scope, { eventType: 'internal.probe', aggregateId: 'a', data: {} });
      const settled = await eventSettles(guarded.herald, event.eventId);
      expect(settled.status).toBe('FAILED');
      expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED', attempts: 1 });
      expect(settled.deliveries[0]?.attemptHistory[0]).toMatchObject({ errorClass: 'SSRF_BLOCKED' });
      expect(proxy.connects.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
