// The pure parts of OAuth2 client credentials: input checks, the token request, the token answer
// and its usable life.
import { describe, expect, test } from 'vitest';
import { buildTokenRequest } from '../../src/engine/oauth2/token-request.js';
import { DEFAULT_TOKEN_LIFETIME_MS, parseTokenAnswer, usableUntil } from '../../src/engine/oauth2/token-response.js';
import { checkTokenUrl, oauth2Issues } from '../../src/validation/oauth2.js';

const valid = { tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'herald', clientSecret: 's3cret:with space' };

describe('oauth2 input', () => {
  test('valid credentials pass; scope, audience and clientAuthentication are optional', () => {
    expect(oauth2Issues(valid)).toEqual([]);
    expect(oauth2Issues({ ...valid, scope: 'webhooks:write read', audience: 'https://api.example.com', clientAuthentication: 'body' })).toEqual([]);
  });

  test('each bad part is named; the secret is never quoted', () => {
    expect(oauth2Issues('x')).toEqual([{ field: 'oauth2', message: expect.stringContaining('must be an object') }]);
    expect(oauth2Issues({})).toEqual([
      { field: 'oauth2.tokenUrl', message: 'is required' },
      { field: 'oauth2.clientId', message: 'is required' },
      { field: 'oauth2.clientSecret', message: 'is required' },
    ]);
    const issues = oauth2Issues({ ...valid, clientSecret: 'bad\u0001secret', clientId: 7, scope: 'a  b', clientAuthentication: 'digest', extra: 1 });
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'oauth2.extra', message: 'is not a known property' },
        { field: 'oauth2.clientId', message: 'must be a string' },
        { field: 'oauth2.clientSecret', message: expect.stringContaining('printable ASCII') },
        { field: 'oauth2.scope', message: expect.stringContaining('single spaces') },
        { field: 'oauth2.clientAuthentication', message: 'must be "basic" or "body"' },
      ]),
    );
    expect(JSON.stringify(issues)).not.toContain('bad\u0001secret');
    expect(oauth2Issues({ ...valid, clientSecret: 'x'.repeat(1025) })).toEqual([{ field: 'oauth2.clientSecret', message: 'must be at most 1024 characters' }]);
  });

  test('the token URL is https, or http to a loopback address only, spelled as target URLs are', () => {
    expect(checkTokenUrl('HTTPS://Auth.Example.com/token')).toEqual({ ok: true, url: 'https://auth.example.com/token' });
    expect(checkTokenUrl('http://127.0.0.1:8080/token')).toMatchObject({ ok: true });
    expect(checkTokenUrl('http://[::1]/token')).toMatchObject({ ok: true });
    expect(checkTokenUrl('http://auth.example.com/token')).toMatchObject({ ok: false, message: expect.stringContaining('https://') });
    expect(checkTokenUrl('https://user:pw@auth.example.com/token')).toMatchObject({ ok: false, message: expect.stringContaining('user info') });
    expect(checkTokenUrl('ftp://auth.example.com/')).toMatchObject({ ok: false });
  });
});

describe('token request', () => {
  test('basic: the form-encoded id and secret in an Authorization header, the grant, scope and audience in the body', () => {
    const { headers, body } = buildTokenRequest({ ...valid, scope: 'a b', audience: 'api', clientAuthentication: 'basic' }, 'Herald/test');
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Buffer.from(headers.authorization!.replace(/^Basic /, ''), 'base64').toString()).toBe('herald:s3cret%3Awith+space');
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({ grant_type: 'client_credentials', scope: 'a b', audience: 'api' });
  });

  test('body: client_id and client_secret as form fields, no Authorization header', () => {
    const { headers, body } = buildTokenRequest({ ...valid, clientAuthentication: 'body' }, 'Herald/test');
    expect(headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({ grant_type: 'client_credentials', client_id: 'herald', client_secret: 's3cret:with space' });
  });
});

describe('token answer', () => {
  const now = 1_000_000;
  test('a Bearer token is usable until its expiry less 30 s, or a tenth of a short life', () => {
    expect(parseTokenAnswer(200, JSON.stringify({ access_token: 'abc', token_type: 'Bearer', expires_in: 3600 }), now)).toEqual({ ok: true, token: { value: 'abc', usableUntilMs: now + 3_600_000 - 30_000 } });
    expect(usableUntil(now, 10)).toBe(now + 9_000);
    expect(usableUntil(now, undefined)).toBe(now + DEFAULT_TOKEN_LIFETIME_MS - 30_000);
    expect(parseTokenAnswer(200, JSON.stringify({ access_token: 'abc', token_type: 'bearer', expires_in: '60' }), now)).toMatchObject({ ok: true, token: { usableUntilMs: now + 54_000 } });
    expect(parseTokenAnswer(200, JSON.stringify({ access_token: 'abc' }), now)).toMatchObject({ ok: true });
  });

  test('failures name the status and what is wrong, never the body or the token', () => {
    expect(parseTokenAnswer(500, '{"access_token":"leak"}', now)).toEqual({ ok: false, message: 'the token endpoint answered HTTP 500' });
    expect(parseTokenAnswer(200, '<html>leak</html>', now)).toEqual({ ok: false, message: 'the token endpoint answered HTTP 200 with a body that is not JSON' });
    expect(parseTokenAnswer(200, '[]', now)).toMatchObject({ ok: false, message: expect.stringContaining('not an object') });
    expect(parseTokenAnswer(200, '{"token":"leak"}', now)).toMatchObject({ ok: false, message: expect.stringContaining('without an access_token') });
    expect(parseTokenAnswer(200, '{"access_token":"le ak"}', now)).toMatchObject({ ok: false, message: expect.stringContaining('visible ASCII') });
    expect(parseTokenAnswer(200, '{"access_token":"leak","token_type":"mac"}', now)).toMatchObject({ ok: false, message: expect.stringContaining('not Bearer') });
    expect(parseTokenAnswer(200, '{"access_token":"leak","expires_in":-5}', now)).toMatchObject({ ok: false, message: expect.stringContaining('expires_in') });
    for (const body of ['{"access_token":"leak"}', '{"token":"leak"}', '{"access_token":"le ak"}']) {
      const answer = parseTokenAnswer(200, body, now);
      if (!answer.ok) expect(answer.message).not.toContain('leak');
    }
  });
});
