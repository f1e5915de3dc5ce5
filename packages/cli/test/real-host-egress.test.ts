// `--egress-proxy` of `webhooks subscribers create|update`, run as the built `herald` against the
// real host with an egress proxy configured by name (the engine stays off: nothing is delivered).
import { describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';

const cli = realHostSuite({ mode: 'api-only', overrides: { egressProxies: { eu: 'http://127.0.0.1:9' } } });
const herald = cli.herald;

describe('webhooks subscribers --egress-proxy against the real host', () => {
  it('create names a configured proxy, update goes direct with none and back to the default with default', async () => {
    const created = await herald(['webhooks', 'subscribers', 'create', '--id', 'via-eu', '--name', 'EU', '--url', 'https://example.com/hook', '--egress-proxy', 'eu', '--json']);
    expect([created.code, created.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(created.text)).toMatchObject({ id: 'via-eu', egressProxy: 'eu' });

    const direct = await herald(['webhooks', 'subscribers', 'update', 'via-eu', '--egress-proxy', 'none', '--json']);
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.text)).toMatchObject({ egressProxy: 'none' });

    const back = await herald(['webhooks', 'subscribers', 'update', 'via-eu', '--egress-proxy', 'default', '--json']);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.text)).not.toHaveProperty('egressProxy');
  });

  it('a name the server does not know is its 400, naming the field and the names it has', async () => {
    const unknown = await herald(['webhooks', 'subscribers', 'update', 'via-eu', '--egress-proxy', 'ap']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('egressProxy');
    expect(unknown.stderr).toContain('no egress proxy named "ap" is configured; the names are "none", "eu"');
  });

  it('a URL is refused before anything is sent', async () => {
    const url = await herald(['webhooks', 'subscribers', 'update', 'via-eu', '--egress-proxy', 'http://user:pw@proxy:3128']);
    expect(url.code).not.toBe(0);
    expect(url.stderr).toContain('--egress-proxy must be the name of an egress proxy configured on the server, none or default');
  });
});
