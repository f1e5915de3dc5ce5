// A subscriber's client certificate over the HTTP API: accepted and described, the key never in a
// response or a log line, bad input refused with a field-level 400, removal with null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/auth/scopes.js';
import { certificateFactory, type CertificateFactory, type Pem } from '../../../test/support/certificates.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
let t: TestHost;
let certs: CertificateFactory;
let client: Pem;
let other: Pem;
let ca: Pem;

interface ErrorBody {
  code: string;
  errors?: Array<{ field: string; message: string }>;
}

beforeAll(async () => {
  certs = certificateFactory();
  ca = certs.authority('client CA');
  client = certs.leaf('herald-client', ca);
  other = certs.leaf('other-client', ca);
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
  certs?.dispose();
});

const tls = (pem: Pem = client) => ({ clientCertificate: pem.cert, clientKey: pem.key, caBundle: ca.cert });
let count = 0;
const body = (extra: Record<string, unknown>) => {
  count += 1;
  return { id: `tls-${count}`, displayName: 'TLS', targetUrl: 'https://example.com/hook', ...extra };
};

describe('tls on subscribers', () => {
  it('create answers the certificate facts; reads and lists never carry the key; logs neither', async () => {
    const created = await t.api.post<{ id: string; tls: Record<string, unknown> }>(BASE, body({ tls: tls() }));
    expect(created.status).toBe(201);
    expect(created.body.tls).toMatchObject({ subject: 'CN=herald-client', issuer: 'CN=client CA', caCertificates: 1 });
    const read = await t.api.get(`${BASE}/${created.body.id}`);
    const listed = await t.api.get(`${BASE}?limit=100`);
    for (const text of [created.text, read.text, listed.text, t.logs.join('\n')]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain(client.key.split('\n')[1]);
    }
  });

  it('PUT replaces the material (rotation) and null removes it', async () => {
    const { body: created } = await t.api.post<{ id: string }>(BASE, body({ tls: tls() }));
    const rotated = await t.api.put<{ tls: { subject: string } }>(`${BASE}/${created.id}`, { tls: tls(other) });
    expect(rotated.status).toBe(200);
    expect(rotated.body.tls.subject).toBe('CN=other-client');
    const removed = await t.api.put<Record<string, unknown>>(`${BASE}/${created.id}`, { tls: null });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty('tls');
  });

  it.each([
    ['a key of another certificate', { clientCertificate: () => client.cert, clientKey: () => other.key }, 'tls.clientKey'],
    ['text that is not PEM', { clientCertificate: () => 'not a certificate', clientKey: () => client.key }, 'tls.clientCertificate'],
    ['a CA bundle with something else in it', { clientCertificate: () => client.cert, clientKey: () => client.key, caBundle: () => `${ca.cert}junk` }, 'tls.caBundle'],
  ])('refuses %s with 400 naming the field, never echoing the key', async (_name, parts, field) => {
    const material = Object.fromEntries(Object.entries(parts).map(([key, make]) => [key, make()]));
    const response = await t.api.post<ErrorBody>(BASE, body({ tls: material }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(response.body.errors?.map((e) => e.field)).toContain(field);
    expect(response.text).not.toContain('PRIVATE KEY');
  });

  it.each([
    ['wrong types', { clientCertificate: 42, clientKey: true }],
    ['a missing key', { clientCertificate: 'x' }],
    ['an unknown field', { clientCertificate: 'x', clientKey: 'y', passphrase: 'z' }],
    ['an oversize CA bundle', { clientCertificate: 'x', clientKey: 'y', caBundle: 'c'.repeat(128 * 1024 + 1) }],
    ['a string instead of an object', 'PEM'],
  ])('refuses %s with 400', async (_name, material) => {
    const response = await t.api.post<ErrorBody>(BASE, body({ tls: material }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
  });

  it('nothing is stored when the material is refused', async () => {
    const id = `tls-refused-${count}`;
    expect((await t.api.post(BASE, { id, displayName: 'x', targetUrl: 'https://example.com/', tls: { clientCertificate: client.cert, clientKey: other.key } })).status).toBe(400);
    expect(await t.database.db.collection('herald_subscribers').countDocuments({ handle: id })).toBe(0);
  });

  it('without the manage scope, or without a token, a certificate cannot be set', async () => {
    const reader = await t.createToken([SCOPES.subscriberRead]);
    expect((await t.api.withToken(reader.token).post(BASE, body({ tls: tls() }))).status).toBe(403);
    expect((await t.api.withToken(undefined).post(BASE, body({ tls: tls() }))).status).toBe(401);
  });
});
