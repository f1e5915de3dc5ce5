import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { buildApiPortalHeaders, buildStandardHeaders, verify, WebhookVerificationError, type VerifyOptions } from '../src/index.js';

const now = 1_700_000_000;
const clock: VerifyOptions = { nowSeconds: () => now };
const body = '{"type":"a.b","data":{"x":1}}';
const whsec = `whsec_${Buffer.from('key-bytes-for-the-tests-32-bytes').toString('base64')}`;

function expectCode(run: () => unknown, code: string): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).code).toBe(code);
    return;
  }
  expect.unreachable(`expected ${code}`);
}

function standardHeaders(secrets: string[], timestamp = now): Record<string, string> {
  return buildStandardHeaders({ eventId: 'evt_1', deliveryId: 'd1', attempt: 1, timestamp, body, secrets });
}

describe('verify, standard profile', () => {
  test('accepts a genuine delivery and returns the parsed payload', () => {
    const result = verify(standardHeaders([whsec]), body, whsec, clock);
    expect(result).toEqual({ profile: 'standard', eventId: 'evt_1', timestamp: now, payload: JSON.parse(body) });
  });

  test('accepts when any of several signatures matches (rotation overlap)', () => {
    const headers = standardHeaders(['the-new-secret-xx', 'the-old-secret-xx']);
    expect(verify(headers, body, 'the-old-secret-xx', clock).eventId).toBe('evt_1');
    expect(verify(headers, body, 'the-new-secret-xx', clock).eventId).toBe('evt_1');
    expectCode(() => verify(headers, body, 'an-unrelated-secret', clock), 'SIGNATURE_MISMATCH');
  });

  test('rejects a tampered body, a wrong secret and a changed id', () => {
    const headers = standardHeaders([whsec]);
    expectCode(() => verify(headers, body.replace('1', '2'), whsec, clock), 'SIGNATURE_MISMATCH');
    expectCode(() => verify(headers, body, 'another-secret-value', clock), 'SIGNATURE_MISMATCH');
    expectCode(() => verify({ ...headers, 'webhook-id': 'evt_2' }, body, whsec, clock), 'SIGNATURE_MISMATCH');
  });

  test('enforces the timestamp tolerance both ways (default 5 minutes)', () => {
    expect(verify(standardHeaders([whsec], now - 299), body, whsec, clock).timestamp).toBe(now - 299);
    expectCode(() => verify(standardHeaders([whsec], now - 301), body, whsec, clock), 'TIMESTAMP_OUT_OF_RANGE');
    expectCode(() => verify(standardHeaders([whsec], now + 301), body, whsec, clock), 'TIMESTAMP_OUT_OF_RANGE');
    expect(verify(standardHeaders([whsec], now - 1000), body, whsec, { ...clock, toleranceSeconds: 1200 }).eventId).toBe('evt_1');
  });

  test('missing or malformed headers are typed errors', () => {
    const { 'webhook-signature': _dropped, ...unsigned } = standardHeaders([whsec]);
    expectCode(() => verify(unsigned, body, whsec, clock), 'MISSING_HEADER');
    expectCode(() => verify({}, body, whsec, clock), 'MISSING_HEADER');
    expectCode(() => verify({ ...standardHeaders([whsec]), 'webhook-timestamp': 'soon' }, body, whsec, clock), 'INVALID_HEADER');
    expectCode(() => verify(standardHeaders([whsec]), body, '', clock), 'INVALID_SECRET');
  });

  test('accepts fetch Headers, mixed-case names and Buffer bodies', () => {
    const headers = new Headers(Object.entries(standardHeaders([whsec])).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(headers, Buffer.from(body), whsec, clock).eventId).toBe('evt_1');
  });

  test('interop: the standardwebhooks package verifies what we sign and we verify what it signs', () => {
    const wallClock = Math.floor(Date.now() / 1000);
    const ours = buildStandardHeaders({ eventId: 'evt_9', deliveryId: 'd', attempt: 1, timestamp: wallClock, body, secrets: [whsec] });
    expect(new Webhook(whsec).verify(body, ours)).toEqual(JSON.parse(body));

    const signature = new Webhook(whsec).sign('evt_10', new Date(wallClock * 1000), body);
    const theirs = { 'webhook-id': 'evt_10', 'webhook-timestamp': String(wallClock), 'webhook-signature': signature };
    expect(verify(theirs, body, whsec).eventId).toBe('evt_10');
  });
});

describe('verify, api-portal profile', () => {
  const apiBody = '{"event_id":"e1"}';
  const headers = buildApiPortalHeaders({ eventType: 'a.b', eventId: 'e1', deliveryId: 'd1', timestamp: now, body: apiBody, secret: 'shared-secret' });

  test('auto-detects the profile and accepts a genuine delivery', () => {
    expect(verify(headers, apiBody, 'shared-secret', clock)).toMatchObject({ profile: 'api-portal', eventId: 'e1', timestamp: now });
  });

  test('accepts the known-answer header', () => {
    const known = { 'X-Api-Portal-Signature': 't=1700000000,v1=74d0ee938ed8d438f910c8eefa9612292ce48b661b333f859b2ddc810369cac6' };
    expect(verify(known, apiBody, 'shared-secret', { ...clock, profile: 'api-portal' }).timestamp).toBe(now);
  });

  test('rejects tampering with body or timestamp, and old deliveries', () => {
    expectCode(() => verify(headers, '{"event_id":"e2"}', 'shared-secret', clock), 'SIGNATURE_MISMATCH');
    const shifted = { ...headers, 'x-api-portal-signature': headers['x-api-portal-signature']!.replace(`t=${now}`, `t=${now + 1}`) };
    expectCode(() => verify(shifted, apiBody, 'shared-secret', clock), 'SIGNATURE_MISMATCH');
    expectCode(() => verify(headers, apiBody, 'shared-secret', { nowSeconds: () => now + 301 }), 'TIMESTAMP_OUT_OF_RANGE');
  });

  test('an unsigned delivery cannot be verified with a secret', () => {
    const unsigned = buildApiPortalHeaders({ eventType: 'a.b', eventId: 'e1', deliveryId: 'd1', timestamp: now, body: apiBody });
    expectCode(() => verify(unsigned, apiBody, 'shared-secret', clock), 'MISSING_HEADER');
    expectCode(() => verify({ ...headers, 'x-api-portal-signature': 'v1=abc' }, apiBody, 'shared-secret', clock), 'INVALID_HEADER');
  });

  test('a signature that verifies but a body that is not JSON is INVALID_PAYLOAD', () => {
    const raw = 'not json';
    const signed = buildApiPortalHeaders({ eventType: 'a.b', eventId: 'e1', deliveryId: 'd1', timestamp: now, body: raw, secret: 'shared-secret' });
    expectCode(() => verify(signed, raw, 'shared-secret', clock), 'INVALID_PAYLOAD');
  });
});
