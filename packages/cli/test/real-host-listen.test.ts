// `herald webhooks listen` end to end: the built executable, the real host (no SSRF allow-list, so
// only the host's own listen route is reachable on loopback) and a real receiver on this machine.
// A published event reaches the receiver signed with the printed secret, and the receiver's answers
// (201; then 500, retried, then 200) are what the event records.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestHost, type TestHost } from '../../server/test/support/test-host.js';
import { seedConfig } from './support/config-fixture.js';
import { assertBuilt, heraldBin, runHerald, temporaryDirectory, type RunOptions } from './support/run-herald.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let host: TestHost;
let options: RunOptions;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Statuses the receiver answers with, in order; 200 once exhausted. */
const answers: number[] = [];
const data = { name: 'ci', token: 't' };

beforeAll(async () => {
  assertBuilt();
  host = await startTestHost({ overrides: { ssrfAllowList: [], logLevel: 'warn' } });
  options = { configDir: join(temporaryDirectory('herald-cfg-'), 'herald'), cwd: temporaryDirectory('herald-cwd-') };
  seedConfig(options.configDir, { url: host.host.url, token: host.adminToken });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answers.shift() ?? 200, { 'content-type': 'text/plain' }).end('local answer');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${address.port}/hooks`;
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await host?.close();
});

/** Starts `herald webhooks listen` and hands out its stdout lines as they come. */
function startListen(args: readonly string[]): { child: ChildProcessWithoutNullStreams; nextLine(): Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [heraldBin, 'webhooks', 'listen', ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: options.cwd, HERALD_CONFIG_DIR: options.configDir, CI: 'true' },
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    const waiter = waiting.shift();
    if (waiter) waiter(text);
    else lines.push(text);
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exit,
    nextLine: () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

const publish = async () => {
  const published = await host.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'apikey.generated', aggregateId: 'k1', data });
  expect(published.status).toBe(201);
  return published.body.eventId;
};

async function delivery(eventId: string) {
  const detail = await host.api.get<{ deliveries: { status: string; lastHttpStatus?: number; attempts?: unknown[]; attemptCount?: number }[] }>(`/api/v0.9/webhook-events/${eventId}`);
  return detail.body.deliveries[0];
}

test('deliveries reach the local receiver signed, and its answers are the recorded outcomes', async () => {
  const listen = startListen(['--forward-to', receiverUrl, '--events', 'apikey.*', '--json']);
  const ready = JSON.parse(await listen.nextLine()) as { kind: string; listenerId: string; secret: string };
  expect(ready).toMatchObject({ kind: 'ready', events: ['apikey.*'], forwardTo: receiverUrl });

  answers.push(201);
  const first = await publish();
  const line = JSON.parse(await listen.nextLine()) as Record<string, unknown>;
  expect(line).toMatchObject({ kind: 'delivery', type: 'apikey.generated', eventId: first, status: 201 });
  const detail = await host.api.get<{ deliveries: { deliveryId: string }[] }>(`/api/v0.9/webhook-events/${first}`);
  expect(line.deliveryId).toBe(detail.body.deliveries[0]!.deliveryId);
  const got = received.at(-1)!;
  expect(verify(got.headers, got.body, ready.secret).eventId).toBe(first);
  await expect.poll(() => delivery(first), { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 201 });

  // A 500 is a failed attempt like any other: the engine retries and the 200 that follows delivers it.
  answers.push(500);
  const second = await publish();
  expect(JSON.parse(await listen.nextLine())).toMatchObject({ eventId: second, status: 500 });
  expect(JSON.parse(await listen.nextLine())).toMatchObject({ eventId: second, status: 200 });
  await expect.poll(() => delivery(second), { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 200 });

  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
  await expect.poll(async () => (await host.api.get(`/api/v0.9/webhook-subscribers/${ready.listenerId}`)).status, { timeout: 5_000 }).toBe(404);
}, 60_000);

test('on a terminal-less stdout without --json it prints the secret, a ready line and one line per delivery', async () => {
  const listen = startListen(['--forward-to', receiverUrl, '--events', 'apikey.generated']);
  const secretLine = await listen.nextLine();
  expect(secretLine).toMatch(/^Signing secret: whsec_/);
  expect(await listen.nextLine()).toMatch(/^Ready: forwarding apikey\.generated to http:\/\/127\.0\.0\.1:\d+\/hooks \(listener lst_[0-9a-f]+\)/);
  const eventId = await publish();
  expect(await listen.nextLine()).toMatch(new RegExp(`^→ 200 apikey\\.generated ${eventId} \\d+ ms$`));
  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
}, 30_000);

test('a receiver that is not running is reported as 502 with the reason, a failed attempt', async () => {
  // A port that was just free: nothing listens there now.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  const listen = startListen(['--forward-to', `http://127.0.0.1:${closedPort}/nothing-here`, '--json']);
  const ready = JSON.parse(await listen.nextLine()) as { kind: string };
  expect(ready.kind).toBe('ready');
  const eventId = await publish();
  const line = JSON.parse(await listen.nextLine()) as Record<string, unknown>;
  expect(line).toMatchObject({ eventId, status: 502 });
  expect(String(line.error)).toContain('connection refused');
  await expect.poll(async () => (await delivery(eventId))?.lastHttpStatus, { timeout: 10_000 }).toBe(502);
  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
}, 30_000);

test('bad input is a usage error and opens no listener', async () => {
  const before = received.length;
  for (const args of [['--forward-to', 'ftp://127.0.0.1/x'], ['--forward-to', 'not a url'], ['--forward-to', receiverUrl, '--events', 'Bad Pattern'], []]) {
    const run = await runHerald(['webhooks', 'listen', ...args], options);
    expect([run.code, run.text]).toStrictEqual([2, '']);
    expect(run.stderr).toMatch(/--forward-to|--events/);
  }
  const all = await host.host.herald.subscribers.list({ orgId: host.config.org }, { listeners: true });
  expect(all.list).toEqual([]);
  expect(received.length).toBe(before);
});
