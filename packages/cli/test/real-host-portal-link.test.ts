// `herald webhooks portal-link` against the real host: the link printed (absolute, on stdout) and
// as JSON, the link opens once, bad flags refused before any request, and the server's refusals
// (a foreign org, a token without the scope) passed on.
import { describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';

const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;

const linkCount = async () => cli.host.database.db.collection('herald_server_portal_links').countDocuments({});

async function open(url: string): Promise<number> {
  const code = new URL(url).hash.replace(/^#code=/, '');
  const response = await fetch(`${cli.host.host.url}/api/v0.9/portal-sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  return response.status;
}

describe('webhooks portal-link', () => {
  it('prints an absolute single-use link on stdout, for the instance org, 10 minutes by default', async () => {
    const run = await herald(['webhooks', 'portal-link']);
    expect(run.code).toBe(0);
    const url = run.text.trim();
    expect(url).toMatch(new RegExp(`^${cli.host.host.url}/console/portal/#code=hpl_[A-Za-z0-9_-]{43}$`));
    expect(run.stderr).toContain('Single use, for organization default');
    expect(await open(url)).toBe(201);
    expect(await open(url)).toBe(410);
  });

  it('--json with --org and --expires', async () => {
    const before = Date.now();
    const run = await herald(['webhooks', 'portal-link', '--org', 'default', '--expires', '1h30m', '--json']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    const link = JSON.parse(run.text) as { url: string; orgId: string; expiresAt: string };
    expect(link.orgId).toBe('default');
    expect(link.url.startsWith(`${cli.host.host.url}/console/portal/#code=hpl_`)).toBe(true);
    const ttl = Date.parse(link.expiresAt) - before;
    expect(ttl).toBeGreaterThan(5_390_000);
    expect(ttl).toBeLessThan(5_420_000);
  });

  it.each([
    [['--expires', '10'], '--expires must be a duration such as 10m'],
    [['--expires', 'soon'], '--expires must be a duration such as 10m'],
    [['--expires', '30s'], '--expires must be between 1m and 24h'],
    [['--expires', '2d'], '--expires must be between 1m and 24h'],
    [['--org', '../x'], '--org must be an organization handle'],
    [['--org'], '--org'],
    [['--colour', 'red'], '--colour'],
    [['extra'], 'extra'],
  ])('%j is exit 2 and makes no link', async (flags, message) => {
    const before = await linkCount();
    const run = await herald(['webhooks', 'portal-link', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await linkCount()).toBe(before);
  });

  it('a foreign org is the server\'s 403, exit 1', async () => {
    const run = await herald(['webhooks', 'portal-link', '--org', 'someone-else']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('403');
    expect(run.stderr).toContain('Organization not accessible');
  });

  it('a token without dp:portal_link:create is refused with the scope named', async () => {
    const { token } = await cli.host.createToken(['dp:webhook_subscriber:manage']);
    const run = await herald(['webhooks', 'portal-link'], { env: { HERALD_TOKEN: token } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('dp:portal_link:create');
    expect(run.stderr).not.toContain(token);
  });
});
