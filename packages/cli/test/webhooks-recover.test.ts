// `herald webhooks subscribers recover|recovery` as the real executable against a recording server:
// the exact requests, polling with --wait, and usage errors that send nothing.
import { describe, expect, it } from 'vitest';
import { recordingServerSuite } from './support/cli-suite.js';
import { jsonReply as json } from './support/recording-server.js';

const cli = recordingServerSuite();
const herald = cli.herald;
const recovery = (status: string, requeued: number) => ({
  recoveryId: 'rec_0123456789abcdef',
  subscriberId: 'billing',
  since: '2025-01-31T10:00:00.000Z',
  until: '2025-01-31T12:00:00.000Z',
  statuses: ['FAILED'],
  status,
  requeued,
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-01-31T12:00:00.000Z',
  completedAt: status === 'COMPLETED' ? '2025-01-31T12:00:02.000Z' : null,
});

describe('subscribers recover', () => {
  it('--since 2h sends now minus two hours; prints the recovery and how to follow it', async () => {
    cli.server.respond(() => json(recovery('QUEUED', 0), 202));
    const before = Date.now();
    const run = await herald(['webhooks', 'subscribers', 'recover', 'billing', '--since', '2h']);
    expect(run.code).toBe(0);
    const request = cli.server.requests[0]!;
    expect([request.method, request.url]).toStrictEqual(['POST', '/api/v0.9/webhook-subscribers/billing/recover']);
    const body = JSON.parse(request.body.toString()) as { since: string };
    expect(Object.keys(body)).toStrictEqual(['since']);
    const since = Date.parse(body.since);
    expect(since).toBeGreaterThanOrEqual(before - 2 * 3_600_000 - 1_000);
    expect(since).toBeLessThanOrEqual(Date.now() - 2 * 3_600_000);
    expect(JSON.parse(run.text)).toStrictEqual(recovery('QUEUED', 0));
    expect(run.stderr).toBe('Recovery rec_0123456789abcdef is QUEUED. Follow it with: herald webhooks subscribers recovery billing rec_0123456789abcdef\n');
  });

  it('sends --until and every --status as given in ISO form', async () => {
    cli.server.respond(() => json(recovery('QUEUED', 0), 202));
    const run = await herald([
      'webhooks', 'subscribers', 'recover', 'billing', '--since', '2025-01-31T00:00:00+01:00', '--until', '2025-01-31T06:00:00Z', '--status', 'FAILED', '--status', 'delivered',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(cli.server.requests[0]!.body.toString())).toStrictEqual({
      since: '2025-01-30T23:00:00.000Z',
      until: '2025-01-31T06:00:00.000Z',
      statuses: ['FAILED', 'DELIVERED'],
    });
  });

  it('--wait polls the recovery until COMPLETED and prints the last answer', async () => {
    const answers = [json(recovery('QUEUED', 0), 202), json(recovery('RUNNING', 200)), json(recovery('COMPLETED', 250))];
    cli.server.respond(() => answers.shift() ?? json({}, 500));
    const run = await herald(['webhooks', 'subscribers', 'recover', 'billing', '--since', '1d', '--wait']);
    expect([run.code, run.stderr]).toStrictEqual([0, '']);
    expect(cli.server.requests.map((request) => `${request.method} ${request.url}`)).toStrictEqual([
      'POST /api/v0.9/webhook-subscribers/billing/recover',
      'GET /api/v0.9/webhook-subscribers/billing/recoveries/rec_0123456789abcdef',
      'GET /api/v0.9/webhook-subscribers/billing/recoveries/rec_0123456789abcdef',
    ]);
    expect(JSON.parse(run.text)).toStrictEqual(recovery('COMPLETED', 250));
  });

  it('a server refusal (disabled subscriber) is exit 1 with its message', async () => {
    cli.server.respond(() => json({ status: 'error', code: 'CONFLICT', message: 'Subscriber "billing" is disabled' }, 409));
    const run = await herald(['webhooks', 'subscribers', 'recover', 'billing', '--since', '2h']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 409 CONFLICT: Subscriber "billing" is disabled');
  });

  it.each([
    [['--since', 'yesterday'], '--since must be a duration back from now'],
    [['--since', '2h', '--until', 'soon'], '--until must be a duration back from now'],
    [['--since', '1h', '--until', '2h'], '--until ('],
    [['--since', '2h', '--status', 'PENDING'], '--status must be FAILED or DELIVERED'],
    [['--since', '2025-01-31'], 'ISO date-time with a zone'],
    [[], 'missing --since'],
  ])('%j is a usage error (exit 2) and sends nothing', async (flags, message) => {
    const run = await herald(['webhooks', 'subscribers', 'recover', 'billing', ...flags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('without an id it is a usage error', async () => {
    const run = await herald(['webhooks', 'subscribers', 'recover', '--since', '2h']);
    expect([run.code, run.stderr]).toStrictEqual([2, "herald: missing <id> argument\nRun 'herald webhooks subscribers recover --help' for usage.\n"]);
  });
});

describe('subscribers recovery', () => {
  it('gets one recovery by subscriber and id', async () => {
    cli.server.respond(() => json(recovery('RUNNING', 200)));
    const run = await herald(['webhooks', 'subscribers', 'recovery', 'billing', 'rec_0123456789abcdef']);
    expect(run.code).toBe(0);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-subscribers/billing/recoveries/rec_0123456789abcdef');
    expect(JSON.parse(run.text)).toStrictEqual(recovery('RUNNING', 200));
  });

  it('needs both ids, and sends each as one path segment', async () => {
    expect((await herald(['webhooks', 'subscribers', 'recovery', 'billing'])).stderr).toContain('missing <recovery-id> argument');
    cli.server.respond(() => json({ status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'bad' }, 400));
    await herald(['webhooks', 'subscribers', 'recovery', 'billing', '../x']);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-subscribers/billing/recoveries/..%2Fx');
  });
});
