// `--oauth2-*` and `--no-oauth2` of `webhooks subscribers create|update`, run as the built `herald`
// against the real host (engine off: nothing is delivered).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';

const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;
const CLIENT_SECRET = 'cli-oauth2-client-secret-77';
let secretFile: string;

beforeAll(() => {
  secretFile = join(cli.host.dataDir, 'client-secret.txt');
  writeFileSync(secretFile, `${CLIENT_SECRET}\n`);
});

const credentials = () => ['--oauth2-token-url', 'https://auth.example.com/oauth/token', '--oauth2-client-id', 'herald-cli', '--oauth2-client-secret-file', secretFile];

describe('webhooks subscribers --oauth2-* against the real host', () => {
  it('create sets the credentials from a secret file: the answer shows all but the secret; --no-oauth2 removes them', async () => {
    const created = await herald(['webhooks', 'subscribers', 'create', '--id', 'oauth2', '--name', 'OAuth2', '--url', 'https://example.com/hook',
      ...credentials(), '--oauth2-scope', 'hooks:receive', '--oauth2-audience', 'https://example.com', '--json']);
    expect([created.code, created.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(created.text)).toMatchObject({
      id: 'oauth2',
      oauth2: { tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'herald-cli', clientSecretSet: true, scope: 'hooks:receive', audience: 'https://example.com', clientAuthentication: 'basic' },
    });
    expect(created.text).not.toContain(CLIENT_SECRET);

    const body = await herald(['webhooks', 'subscribers', 'update', 'oauth2', ...credentials(), '--oauth2-client-auth', 'body', '--json']);
    expect(body.code).toBe(0);
    expect(JSON.parse(body.text).oauth2).toEqual({ tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'herald-cli', clientSecretSet: true, clientAuthentication: 'body' });

    const removed = await herald(['webhooks', 'subscribers', 'update', 'oauth2', '--no-oauth2', '--json']);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.text)).not.toHaveProperty('oauth2');
  });

  it('partial credentials, removal with credentials, or a bad client auth are refused before anything is sent', async () => {
    const partial = await herald(['webhooks', 'subscribers', 'update', 'oauth2', '--oauth2-scope', 'a']);
    expect(partial.code).not.toBe(0);
    expect(partial.stderr).toContain('--oauth2-token-url, --oauth2-client-id and --oauth2-client-secret-file go together');
    const both = await herald(['webhooks', 'subscribers', 'update', 'oauth2', '--no-oauth2', ...credentials()]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--no-oauth2 cannot be combined');
    const auth = await herald(['webhooks', 'subscribers', 'update', 'oauth2', ...credentials(), '--oauth2-client-auth', 'jwt']);
    expect(auth.code).not.toBe(0);
    expect(auth.stderr).toContain('--oauth2-client-auth must be basic or body, got "jwt"');
  });

  it("the server's 400 names the field (plain http off this machine); a missing secret file is named; the secret is never echoed", async () => {
    const insecure = await herald(['webhooks', 'subscribers', 'update', 'oauth2', '--oauth2-token-url', 'http://auth.example.com/token', '--oauth2-client-id', 'x', '--oauth2-client-secret-file', secretFile]);
    expect(insecure.code).not.toBe(0);
    expect(insecure.stderr).toContain('oauth2.tokenUrl');
    expect(insecure.stderr).not.toContain(CLIENT_SECRET);
    const missing = await herald(['webhooks', 'subscribers', 'update', 'oauth2', '--oauth2-token-url', 'https://auth.example.com/t', '--oauth2-client-id', 'x', '--oauth2-client-secret-file', join(cli.host.dataDir, 'nope.txt')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--oauth2-client-secret-file: cannot read');
  });
});
