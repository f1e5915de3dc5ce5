// JWTs from an identity provider (DECISIONS §4): verified with jose against a PEM key or a JWKS URL
// served from loopback; issuer, audience, expiry, subject, scopes (`scope`/`scp`) and org claim checked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'herald-api';
const SUB = '/api/v0.9/webhook-subscribers';

let privateKey: CryptoKey;
let otherKey: CryptoKey;
let t: TestHost;
const issued: string[] = [];

async function jwt(claims: JWTPayload, options: { key?: CryptoKey; kid?: string; expiresIn?: string | number; issuer?: string; audience?: string } = {}) {
  let builder = new SignJWT({ org: 'default', scope: 'dp:webhook_subscriber:manage dp:event:read', ...claims })
    .setProtectedHeader({ alg: 'ES256', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuedAt()
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setExpirationTime(options.expiresIn ?? '5m');
  if (claims.sub === undefined) builder = builder.setSubject('user-42');
  const token = await builder.sign(options.key ?? privateKey);
  issued.push(token);
  return token;
}

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  t = await startTestHost({
    overrides: { jwt: { publicKeyPem: await exportSPKI(pair.publicKey), issuer: ISSUER, audience: AUDIENCE } },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('PEM key', () => {
  it('a valid JWT is accepted; createdBy is its subject', async () => {
    const token = await jwt({});
    const created = await t.api.post<{ createdBy: string; updatedBy: string }>(
      SUB,
      { id: 'by-jwt', displayName: 'JWT', targetUrl: 'https://example.com/j' },
      { token },
    );
    expect(created.status).toBe(201);
    expect(created.body.createdBy).toBe('user-42');
    // JWT subjects cannot be checked against the identity provider: they stay as they are.
    expect((await t.api.get<{ createdBy: string }>(`${SUB}/by-jwt`)).body.createdBy).toBe('user-42');
  });

  it('scopes from an scp array work like the scope string', async () => {
    const token = await jwt({ scope: undefined, scp: ['dp:event:read'] });
    expect((await t.api.get('/api/v0.9/webhook-events', { token })).status).toBe(200);
    expect((await t.api.get(SUB, { token })).status).toBe(403);
  });

  it.each([
    ['expired', {}, { expiresIn: Math.floor(Date.now() / 1000) - 120 }],
    ['wrong issuer', {}, { issuer: 'https://evil.example/' }],
    ['wrong audience', {}, { audience: 'someone-else' }],
    ['signed by another key', {}, { key: 'other' }],
    ['without a subject', { sub: '' }, {}],
  ] as const)('%s → 401 UNAUTHORIZED', async (_case, claims, options) => {
    const token = await jwt(claims, { ...options, key: 'key' in options ? otherKey : privateKey } as Parameters<typeof jwt>[1]);
    const response = await t.api.get<{ code: string }>(SUB, { token });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('a tampered payload → 401', async () => {
    const [header, , signature] = (await jwt({})).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'admin', org: 'default', scope: 'dp:webhook_subscriber:manage', iss: ISSUER, aud: AUDIENCE, exp: 9999999999 })).toString('base64url');
    expect((await t.api.get(SUB, { token: `${header}.${forged}.${signature}` })).status).toBe(401);
  });

  it.each([
    ['a foreign org claim', { org: 'other-org' }],
    ['no org claim', { org: undefined }],
  ])('%s → 403 FORBIDDEN', async (_case, claims) => {
    const response = await t.api.get<{ code: string }>(SUB, { token: await jwt(claims) });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('FORBIDDEN');
  });

  it('a missing scope → 403', async () => {
    const response = await t.api.post<{ code: string }>('/api/v0.9/webhook-events', { eventType: 'a.b', aggregateId: 'x', data: {} }, { token: await jwt({}) });
    expect(response.status).toBe(403);
  });

  it('never logged a JWT', () => {
    const logs = t.logs.join('\n');
    for (const token of issued) expect(logs).not.toContain(token);
  });
});

describe('JWKS URL', () => {
  let jwks: Server;
  let jwksHost: TestHost;
  let jwksRequests = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k-2026', alg: 'RS256', use: 'sig' };
    jwks = createServer((_request, response) => {
      jwksRequests += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    jwksHost = await startTestHost({
      overrides: { jwt: { jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`, issuer: ISSUER, audience: AUDIENCE, orgClaim: 'tenant' } },
    });
  });
  afterAll(async () => {
    await jwksHost?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  async function rsJwt(claims: JWTPayload, expiresIn: string | number = '5m') {
    return new SignJWT({ tenant: 'default', scope: 'dp:webhook_subscriber:read', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k-2026' })
      .setSubject('svc-operator')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(expiresIn)
      .sign(privateKey);
  }

  it('verifies against keys fetched from the JWKS endpoint, with the org from the configured claim', async () => {
    expect((await jwksHost.api.get(SUB, { token: await rsJwt({}) })).status).toBe(200);
    expect(jwksRequests).toBeGreaterThanOrEqual(1);
    expect((await jwksHost.api.get(SUB, { token: await rsJwt({ tenant: 'someone-else' }) })).status).toBe(403);
  });

  it('an expired JWT → 401', async () => {
    const response = await jwksHost.api.get(SUB, { token: await rsJwt({}, Math.floor(Date.now() / 1000) - 300) });
    expect(response.status).toBe(401);
  });
});
