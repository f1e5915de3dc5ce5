// `herald webhooks …` as the real executable. Output is piped here (not a TTY), so it is JSON.
import { createHmac } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingServerSuite } from './support/cli-suite.js';
import { testToken } from './support/config-fixture.js';
import { jsonReply as json } from './support/recording-server.js';
import { heraldBin, temporaryDirectory } from './support/run-herald.js';

const cli = recordingServerSuite();
const herald = cli.herald;
const subscriber = { id: 'billing', orgId: 'acme', displayName: 'Billing', targetUrl: 'https://billing.example.com/hooks', enabled: true, events: ['apikey.*'], timeoutMs: 5000, hasSecret: true };

describe('webhooks subscribers', () => {
  it('list passes --limit/--offset and prints the response as JSON', async () => {
    const page = { list: [subscriber], count: 1, pagination: { total: 1, limit: 5, offset: 0 } };
    cli.server.respond(() => json(page));
    const run = await herald(['webhooks', 'subscribers', 'list', '--limit', '5', '--offset', '0']);
    expect(run.code).toBe(0);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-subscribers?limit=5&offset=0');
    expect(cli.server.requests[0]?.headers.authorization).toBe(`Bearer ${testToken}`);
    expect(JSON.parse(run.text)).toStrictEqual(page);
  });

  it('list --all fetches every page', async () => {
    const all = Array.from({ length: 5 }, (_, index) => ({ ...subscriber, id: `s${index}` }));
    cli.server.respond((request) => {
      const offset = Number(new URL(request.url, 'http://x').searchParams.get('offset') ?? 0);
      const list = all.slice(offset, offset + 2);
      return json({ list, count: list.length, pagination: { total: all.length, limit: 2, offset } });
    });
    const run = await herald(['webhooks', 'subscribers', 'list', '--all', '--limit', '2']);
    expect(cli.server.requests).toHaveLength(3);
    expect(JSON.parse(run.text).list.map((item: { id: string }) => item.id)).toStrictEqual(['s0', 's1', 's2', 's3', 's4']);
  });

  it('create sends a WebhookSubscriberRequest built from flags, the secret read from a file', async () => {
    cli.server.respond(() => json(subscriber, 201));
    writeFileSync(join(cli.options.cwd, 'secret.txt'), 'a-long-enough-secret-value\n');
    const run = await herald([
      'webhooks', 'subscribers', 'create', '--id', 'billing', '--name', 'Billing', '--url', 'https://billing.example.com/hooks',
      '--event', 'apikey.*', '--event', 'subscription.created,subscription.deleted', '--timeout-ms', '3000', '--enabled', 'false', '--secret-file', 'secret.txt',
    ]);
    expect(run.code).toBe(0);
    const request = cli.server.requests[0]!;
    expect([request.method, request.url]).toStrictEqual(['POST', '/api/v0.9/webhook-subscribers']);
    expect(JSON.parse(request.body.toString())).toStrictEqual({
      id: 'billing', displayName: 'Billing', targetUrl: 'https://billing.example.com/hooks',
      events: ['apikey.*', 'subscription.created', 'subscription.deleted'], enabled: false, timeoutMs: 3000, secret: 'a-long-enough-secret-value',
    });
    expect(JSON.parse(run.text)).toStrictEqual(subscriber);
  });

  it('create without --url is a usage error and sends nothing', async () => {
    const run = await herald(['webhooks', 'subscribers', 'create', '--name', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing --url');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('update sends only the fields given', async () => {
    cli.server.respond(() => json({ ...subscriber, enabled: false }));
    const run = await herald(['webhooks', 'subscribers', 'update', 'billing', '--enabled', 'false']);
    expect(run.code).toBe(0);
    expect([cli.server.requests[0]?.method, cli.server.requests[0]?.url]).toStrictEqual(['PUT', '/api/v0.9/webhook-subscribers/billing']);
    expect(JSON.parse(cli.server.requests[0]!.body.toString())).toStrictEqual({ enabled: false });
  });

  it('get and list add a notice on stderr for a subscriber Herald disabled, and leave the JSON as served', async () => {
    const disabledReason = { code: 'AUTO_DISABLED', message: 'every delivery has failed since 2026-01-01T00:00:00.000Z, longer than the auto-disable limit of 5d', at: '2026-01-06T00:00:00.000Z' };
    const disabled = { ...subscriber, enabled: false, disabledReason };
    cli.server.respond((request) => (request.url.endsWith('/billing') ? json(disabled) : json({ list: [subscriber, { ...disabled, id: 'audit' }], count: 2, pagination: { total: 2, limit: 20, offset: 0 } })));
    const got = await herald(['webhooks', 'subscribers', 'get', 'billing']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.text)).toStrictEqual(disabled);
    expect(got.stderr).toContain(`Notice: subscriber billing was auto-disabled by Herald at 2026-01-06T00:00:00.000Z: ${disabledReason.message}. Re-enable: herald webhooks subscribers update billing --enabled true`);
    const listed = await herald(['webhooks', 'subscribers', 'list']);
    expect(listed.stderr.match(/Notice:/g)).toHaveLength(1);
    expect(listed.stderr).toContain('Notice: subscriber audit was auto-disabled');
    // An enabled subscriber, or one disabled by hand, gets no notice.
    cli.server.respond(() => json({ ...subscriber, enabled: false }));
    expect((await herald(['webhooks', 'subscribers', 'get', 'billing'])).stderr).not.toContain('Notice');
  });

  it('get and delete address the subscriber by handle', async () => {
    cli.server.respond((request) => (request.method === 'DELETE' ? { status: 204 } : json(subscriber)));
    const got = await herald(['webhooks', 'subscribers', 'get', 'billing', '--json']);
    expect(JSON.parse(got.text)).toStrictEqual(subscriber);
    const deleted = await herald(['webhooks', 'subscribers', 'delete', 'billing']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toBe('Deleted subscriber billing.\n');
    expect(cli.server.requests.map((request) => `${request.method} ${request.url}`)).toStrictEqual([
      'GET /api/v0.9/webhook-subscribers/billing',
      'DELETE /api/v0.9/webhook-subscribers/billing',
    ]);
  });

  it('reports an error response with its code, message and field details, exit 1', async () => {
    cli.server.respond(() => json({ status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'invalid subscriber', errors: [{ field: 'targetUrl', message: 'must be an absolute http(s) URL' }] }, 400));
    const run = await herald(['webhooks', 'subscribers', 'create', '--name', 'x', '--url', 'nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('herald: HTTP 400 MISSING_REQUIRED_PARAMETER: invalid subscriber\n  targetUrl: must be an absolute http(s) URL\n');
  });

  it('reports the legacy {"message"} error shape', async () => {
    cli.server.respond(() => json({ message: 'fields in the payload are missing or invalid' }, 400));
    const run = await herald(['webhooks', 'subscribers', 'update', 'billing', '--name', '']);
    expect(run.stderr).toBe('herald: HTTP 400: fields in the payload are missing or invalid\n');
  });
});

describe('webhooks deliveries and events', () => {
  it('deliveries lists a subscriber\'s attempts', async () => {
    const body = { list: [{ deliveryId: 'd1', eventType: 'apikey.generated', status: 'FAILED', lastHttpStatus: 500, lastError: 'HTTP 500', lastAttemptAt: null, deliveredAt: null, occurredAt: null }] };
    cli.server.respond(() => json(body));
    const run = await herald(['webhooks', 'deliveries', 'billing']);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-subscribers/billing/deliveries');
    expect(JSON.parse(run.text)).toStrictEqual(body);
  });

  it('events list filters by status; an invalid status sends nothing', async () => {
    cli.server.respond(() => json({ list: [], count: 0, pagination: { total: 0, limit: 20, offset: 0 } }));
    const run = await herald(['webhooks', 'events', 'list', '--status', 'failed']);
    expect(run.code).toBe(0);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-events?status=FAILED');
    const bad = await herald(['webhooks', 'events', 'list', '--status', 'LOST']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status must be one of PENDING, DISPATCHED, ALL_DELIVERED, FAILED');
    expect(cli.server.requests).toHaveLength(1);
  });

  it('events get reads one event', async () => {
    cli.server.respond(() => json({ eventId: 'e1', deliveries: [] }));
    const run = await herald(['webhooks', 'events', 'get', 'e1']);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-events/e1');
    expect(JSON.parse(run.text)).toStrictEqual({ eventId: 'e1', deliveries: [] });
  });
});

describe('ids that are dot segments', () => {
  it('sends "." and ".." as escaped path segments, never as "this/parent directory"', async () => {
    cli.server.respond((request) => (request.method === 'DELETE' ? { status: 204 } : json({ eventId: '.', deliveries: [] })));
    expect((await herald(['webhooks', 'subscribers', 'delete', '..'])).code).toBe(0);
    expect((await herald(['webhooks', 'events', 'get', '.'])).code).toBe(0);
    await herald(['webhooks', 'deliveries', '..']);
    expect(cli.server.requests.map((request) => `${request.method} ${request.url}`)).toStrictEqual([
      'DELETE /api/v0.9/webhook-subscribers/%2E%2E',
      'GET /api/v0.9/webhook-events/%2E',
      'GET /api/v0.9/webhook-subscribers/%2E%2E/deliveries',
    ]);
  });
});

describe('webhooks events send', () => {
  const event = { eventId: 'e1', eventType: 'apikey.generated', orgId: 'acme', aggregateType: 'apikey', aggregateId: 'key-1', status: 'PENDING', occurredAt: '2025-01-01T00:00:00.000Z', deliveries: [] };

  it('publishes the event with the data exactly as written, sensitive fields and an Idempotency-Key', async () => {
    cli.server.respond(() => json(event, 201));
    const data = '{"name":"ci", "token":"s3cr3t", "big":12345678901234567890}';
    const run = await herald(['webhooks', 'events', 'send', '--type', 'apikey.generated', '--aggregate-id', 'key-1', '--data', data, '--sensitive', 'token', '--idempotency-key', 'order-42']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const request = cli.server.requests[0]!;
    expect([request.method, request.url]).toStrictEqual(['POST', '/api/v0.9/webhook-events']);
    expect(request.headers['idempotency-key']).toBe('order-42');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.toString()).toBe(`{"eventType":"apikey.generated","aggregateId":"key-1","data":${data},"sensitive":["token"]}`);
    expect(JSON.parse(run.text)).toStrictEqual(event);
  });

  it('reads --data from a file (@path) or standard input (@-)', async () => {
    cli.server.respond(() => json(event, 201));
    writeFileSync(join(cli.options.cwd, 'data.json'), '{"from":"file"}\n');
    await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x', '--data', '@data.json']);
    await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x', '--data', '@-'], { stdin: '{"from":"stdin"}' });
    expect(cli.server.requests.map((request) => JSON.parse(request.body.toString()).data)).toStrictEqual([{ from: 'file' }, { from: 'stdin' }]);
    expect(cli.server.requests[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('says when the Idempotency-Key was used before (200: the original event, no new one)', async () => {
    cli.server.respond(() => json(event, 200));
    const run = await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x', '--data', '{}', '--idempotency-key', 'k1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Idempotency-Key "k1" was used before');
    expect(JSON.parse(run.text)).toStrictEqual(event);
  });

  it.each([
    [['--data', '{"a":1,}'], '--data is not valid JSON'],
    [['--data', ''], '--data is not valid JSON'],
    [['--data', '[1,2]'], '--data must be a JSON object, got an array'],
    [['--data', 'null'], '--data must be a JSON object, got null'],
    [['--data', '{"token":"x"}', '--sensitive', 'tokn'], '--sensitive tokn: --data has no top-level field "tokn"'],
    [['--data', '{}', '--idempotency-key', 'a\rb'], '--idempotency-key'],
  ])('%j is a usage error and sends nothing', async (extra, message) => {
    const run = await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x', ...extra]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('requires --type, --aggregate-id and --data', async () => {
    const noType = await herald(['webhooks', 'events', 'send', '--aggregate-id', 'x', '--data', '{}']);
    expect(noType.stderr).toContain('missing --type');
    const noAggregate = await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--data', '{}']);
    expect(noAggregate.stderr).toContain('missing --aggregate-id');
    const noData = await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x']);
    expect(noData.stderr).toContain('missing --data');
    expect([noType.code, noAggregate.code, noData.code]).toStrictEqual([2, 2, 2]);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('names a --data file that cannot be read (exit 4)', async () => {
    const run = await herald(['webhooks', 'events', 'send', '--type', 'a.b', '--aggregate-id', 'x', '--data', '@missing.json']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('--data: cannot read "missing.json": no such file');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('reports the server\'s refusal with its field details', async () => {
    cli.server.respond(() => json({ status: 'error', code: 'INVALID_PARAMETER', message: 'invalid event', errors: [{ field: 'eventType', message: 'must match family.action' }] }, 400));
    const run = await herald(['webhooks', 'events', 'send', '--type', 'Bad', '--aggregate-id', 'x', '--data', '{}']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('herald: HTTP 400 INVALID_PARAMETER: invalid event\n  eventType: must match family.action\n');
  });
});

describe('webhooks events redeliver and deliveries retry', () => {
  it('redeliver POSTs to the event\'s redeliver endpoint and prints the event', async () => {
    const detail = { eventId: 'e1', deliveries: [{ deliveryId: 'd1', status: 'PENDING', attemptHistory: [] }] };
    cli.server.respond(() => json(detail));
    const run = await herald(['webhooks', 'events', 'redeliver', 'e1']);
    expect(run.code).toBe(0);
    expect(`${cli.server.requests[0]?.method} ${cli.server.requests[0]?.url}`).toBe('POST /api/v0.9/webhook-events/e1/redeliver');
    expect(cli.server.requests[0]?.body.length).toBe(0);
    expect(JSON.parse(run.text)).toStrictEqual(detail);
  });

  it('retry POSTs to the delivery\'s retry endpoint under its event', async () => {
    const row = { deliveryId: 'd1', subscriberId: 'billing', status: 'PENDING' };
    cli.server.respond(() => json(row));
    const run = await herald(['webhooks', 'deliveries', 'retry', 'd1', '--event', 'e1']);
    expect(run.code).toBe(0);
    expect(`${cli.server.requests[0]?.method} ${cli.server.requests[0]?.url}`).toBe('POST /api/v0.9/webhook-events/e1/deliveries/d1/retry');
    expect(JSON.parse(run.text)).toStrictEqual(row);
  });

  it('retry needs the event id (the server addresses a delivery under its event)', async () => {
    const run = await herald(['webhooks', 'deliveries', 'retry', 'd1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing --event');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('escapes dot-segment ids in the retry path', async () => {
    await herald(['webhooks', 'deliveries', 'retry', '..', '--event', '.']);
    expect(cli.server.requests[0]?.url).toBe('/api/v0.9/webhook-events/%2E/deliveries/%2E%2E/retry');
  });

  it('deliveries list <subscriber> is the explicit form of deliveries <subscriber>', async () => {
    cli.server.respond(() => json({ list: [] }));
    await herald(['webhooks', 'deliveries', 'list', 'retry']);
    await herald(['webhooks', 'deliveries', 'billing']);
    expect(cli.server.requests.map((request) => request.url)).toStrictEqual([
      '/api/v0.9/webhook-subscribers/retry/deliveries',
      '/api/v0.9/webhook-subscribers/billing/deliveries',
    ]);
  });

  it('events get --json prints the event detail as JSON, unchanged', async () => {
    const detail = {
      eventId: 'e1', eventType: 'apikey.generated', orgId: 'acme', aggregateType: 'apikey', aggregateId: 'k1', status: 'FAILED', occurredAt: '2025-01-01T00:00:00.000Z',
      deliveries: [{
        deliveryId: 'd1', subscriberId: 'billing', targetUrl: 'https://b/h', status: 'FAILED', lastHttpStatus: 500, lastError: 'HTTP 500', lastAttemptAt: '2025-01-01T00:00:05.000Z', deliveredAt: null,
        attempts: 1, nextAttemptAt: null, encryptedFields: [], createdAt: '2025-01-01T00:00:00.000Z',
        attemptHistory: [{ attempt: 1, startedAt: '2025-01-01T00:00:05.000Z', durationMs: 42, httpStatus: 500, errorClass: 'HTTP_STATUS', errorMessage: 'HTTP 500', responseBodySnippet: 'oops' }],
      }],
    };
    cli.server.respond(() => json(detail));
    const run = await herald(['webhooks', 'events', 'get', 'e1', '--json']);
    expect(run.code).toBe(0);
    expect(run.text).toBe(`${JSON.stringify(detail, null, 2)}\n`);
  });
});

describe('webhooks verify (with @herald/receiver)', () => {
  // Known answer of DECISIONS §6 for the api-portal profile.
  const body = '{"event_id":"e1"}';
  const apiPortalSignature = 't=1700000000,v1=74d0ee938ed8d438f910c8eefa9612292ce48b661b333f859b2ddc810369cac6';

  function save(headers: string): void {
    writeFileSync(join(cli.options.cwd, 'body.json'), body);
    writeFileSync(join(cli.options.cwd, 'headers.txt'), headers);
    writeFileSync(join(cli.options.cwd, 'secret.txt'), 'shared-secret\n');
  }

  it('accepts a valid api-portal signature of a saved delivery', async () => {
    save(`POST /hooks HTTP/1.1\nX-Api-Portal-Event-Id: e1\nX-Api-Portal-Signature: ${apiPortalSignature}\n`);
    const run = await herald(['webhooks', 'verify', '--body', 'body.json', '--headers', 'headers.txt', '--secret-file', 'secret.txt', '--ignore-timestamp']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.text).toBe('Signature valid (profile api-portal, event e1, signed at 2023-11-14T22:13:20.000Z).\n');
  });

  it('rejects a wrong secret and an old timestamp with exit code 1', async () => {
    save(`X-Api-Portal-Signature: ${apiPortalSignature}\n`);
    const wrong = await herald(['webhooks', 'verify', '--body', 'body.json', '--headers', 'headers.txt', '--ignore-timestamp'], { env: { HERALD_WEBHOOK_SECRET: 'other-secret' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('signature not valid: no signature matches (SIGNATURE_MISMATCH)');
    const old = await herald(['webhooks', 'verify', '--body', 'body.json', '--headers', 'headers.txt', '--secret-file', 'secret.txt']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('TIMESTAMP_OUT_OF_RANGE');
  });

  it('verifies a standard-webhooks signature given with -H', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', 'shared-secret').update(`evt_1.${timestamp}.${body}`).digest('base64');
    save('');
    const run = await herald(
      ['webhooks', 'verify', '--body', 'body.json', '-H', 'webhook-id: evt_1', '-H', `webhook-timestamp: ${timestamp}`, '-H', `webhook-signature: v1,${signature}`, '--secret-file', 'secret.txt'],
    );
    expect(run.stderr).toBe('');
    expect(run.text).toContain('Signature valid (profile standard, event evt_1');
  });

  it('says clearly when @herald/receiver is not installed', async () => {
    // A copy of the built CLI outside the workspace cannot resolve @herald/receiver.
    const isolated = temporaryDirectory('herald-isolated-');
    cpSync(join(heraldBin, '..', '..'), join(isolated, 'dist'), { recursive: true });
    writeFileSync(join(isolated, 'package.json'), '{"type":"module"}');
    save(`X-Api-Portal-Signature: ${apiPortalSignature}\n`);
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, [join(isolated, 'dist/bin/herald.js'), 'webhooks', 'verify', '--body', 'body.json', '--headers', 'headers.txt', '--secret-file', 'secret.txt'], {
      cwd: cli.options.cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HERALD_CONFIG_DIR: cli.options.configDir },
    });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('herald webhooks verify needs the @herald/receiver package, which is not installed');
  });
});
