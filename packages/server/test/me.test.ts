// GET /api/v1/me over real HTTP: the caller's identity for API tokens and JWTs (and that it is the
// id recorded as createdBy), never the credential; 401 without a valid one. Responses are checked
// against the served OpenAPI document by the api client.
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'herald-api';
const ME = '/api/v1/me';

interface MeBody {
  principal: string;
  kind: string;
  name?: string;
  scopes: string[];
  orgId: string;
  expiresAt?: string;
}

let t: TestHost;
let privateKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  t = await startTestHost({
    overrides: { jwt: { publicKeyPem: await exportSPKI(pair.publicKey), issuer: ISSUER, audience: AUDIENCE } },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/me', () => {
  it('describes an API token without a scope requirement, and its principal is createdBy', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { token, id } = await t.createToken(['dp:webhook_subscriber:manage', 'dp:event:read'], { name: 'who-am-i', expiresAt });
    const me = await t.api.get<MeBody>(ME, { token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      principal: id,
      kind: 'api-token',
      name: 'who-am-i',
      scopes: ['dp:event:read', 'dp:webhook_subscriber:manage'],
      orgId: 'default',
      expiresAt: expiresAt.toISOString(),
    });
    expect(me.text).not.toContain(token);

    const created = await t.api.post<{ createdBy: string }>(
      '/api/v0.9/webhook-subscribers',
      { id: 'me-check', displayName: 'Me', targetUrl: 'https://example.com/me' },
      { token },
    );
    expect(created.body.createdBy).toBe(me.body.principal);

    // A token with no scope at all may still ask who it is.
    const bare = await t.createToken([], { name: 'bare' });
    const bareMe = await t.api.get<MeBody>(ME, { token: bare.token });
    expect(bareMe.status).toBe(200);
    expect(bareMe.body).toEqual({ principal: bare.id, kind: 'api-token', name: 'bare', scopes: [], orgId: 'default' });
  });

  it('describes a JWT: subject, scopes, name claim and expiry', async () => {
    const token = await new SignJWT({ org: 'default', scope: 'dp:event:read', name: 'Ada' })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('user-7')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const me = await t.api.get<MeBody>(ME, { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ principal: 'user-7', kind: 'jwt', name: 'Ada', scopes: ['dp:event:read'], orgId: 'default' });
    expect(Date.parse(me.body.expiresAt ?? '')).toBeGreaterThan(Date.now());
  });

  it('401 without a token and with garbage or unknown tokens', async () => {
    const cases: Array<Record<string, string>> = [{}, { authorization: 'Bearer garbage' }, { authorization: `Bearer hrd_${'A'.repeat(43)}` }, { authorization: 'Bearer a.b.c' }];
    for (const headers of cases) {
      const response = await t.api.get(ME, { token: undefined, headers });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('is in the v1 OpenAPI document', async () => {
    const document = (await (await fetch(`${t.host.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    expect(document.paths['/api/v1/me']?.get?.operationId).toBe('getMe');
  });
});
