// `herald webhooks retention` against the real host: the policy as the API serves it, set from
// flags, bad flags refused before any request, and the server's refusals passed on.
import { describe, expect, it } from 'vitest';
import { realHostSuite } from './support/cli-suite.js';

const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;

interface Policy { settledEventsDays: number; byEventType: Record<string, number>; source: string }
const stored = async () => (await cli.host.api.get<Policy>('/api/v0.9/webhook-retention')).body;

describe('webhooks retention', () => {
  it.each([[[]], [['get']], [['--json']]])('retention %j prints the policy that applies', async (extra) => {
    const run = await herald(['webhooks', 'retention', ...extra]);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(run.text)).toMatchObject({ settledEventsDays: 30, byEventType: {}, source: 'host', hostDefault: { settledEventsDays: 30 } });
  });

  it('set --days and --type replace the policy; --host-default drops it', async () => {
    const run = await herald(['webhooks', 'retention', 'set', '--days', '14', '--type', 'audit.logged=365', '--type', 'ping.sent=0']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(run.text)).toMatchObject({ settledEventsDays: 14, byEventType: { 'audit.logged': 365, 'ping.sent': 0 }, source: 'organization' });
    expect(await stored()).toMatchObject({ settledEventsDays: 14, source: 'organization' });
    const back = await herald(['webhooks', 'retention', 'set', '--host-default']);
    expect(back.code).toBe(0);
    expect(await stored()).toMatchObject({ settledEventsDays: 30, source: 'host' });
  });

  it.each([
    [['--days', 'thirty'], '--days must be a whole number of days'],
    [['--days', '-1'], '--days must be a whole number of days'],
    [['--type', 'audit.logged'], '--type must be TYPE=DAYS'],
    [['--type', 'a.b=1', '--type', 'a.b=2'], '--type names a.b twice'],
    [['--host-default', '--days', '1'], '--host-default cannot be combined'],
    [[], 'give --days, --type TYPE=DAYS, or --host-default'],
    [['--weeks', '2'], '--weeks'],
  ])('set %j is exit 2 and sends nothing', async (flags, message) => {
    const before = await stored();
    const run = await herald(['webhooks', 'retention', 'set', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await stored()).toStrictEqual(before);
  });

  it('what only the server knows (an event type\'s spelling, the range) is its 400, exit 1', async () => {
    const run = await herald(['webhooks', 'retention', 'set', '--type', 'Not.A.Type=3', '--days', '99999']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 400');
    expect(run.stderr).toContain('settledEventsDays');
    expect((await stored()).source).toBe('host');
  });
});
