// `herald webhooks listen` when its connection drops, end to end: the built executable talks to the
// real host through a TCP relay on loopback that the test can cut (a network drop: every open
// connection reset) and hold shut, and a real receiver answers on this machine. A drop resumes the
// same listener and secret (a delivery published during the gap arrives afterwards, still verifiable
// with the secret printed at the start); a host that forgot the listener (restarted) gives a new one,
// announced with a warning and the new secret.
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { startTestHost, type TestHost } from '../../server/test/support/test-host.js';
import type { ApiClient } from '../../server/test/support/api-client.js';
import { seedConfig } from './support/config-fixture.js';
import { assertBuilt, heraldBin, runHerald, temporaryDirectory, type RunOptions } from './support/run-herald.js';

/** Forwards loopback TCP to the host; cut() resets every connection, refuse() turns new ones away. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private server: TcpServer | undefined;
  refusing = false;

  constructor(public targetPort: number) {}

  async start(): Promise<string> {
    this.server = createTcpServer((client) => {
      this.track(client);
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = this.track(connect(this.targetPort, '127.0.0.1'));
      // Either side failing or closing takes its pair down too, as a dropped network would.
      for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
        from.pipe(to);
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const GRACE_MS = 10_000;
let database: TestDatabase;
let host: TestHost;
/** The bootstrap admin token of the first host; the restarted one shares its database and tokens. */
let adminToken: string;
let api: ApiClient;
let relay: Relay;
let options: RunOptions;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const data = { name: 'ci', token: 't' };

const startHost = (database: TestDatabase) =>
  // Retries spaced so a delivery published while the CLI is away still has attempts left when it is back.
  startTestHost({ database, overrides: { ssrfAllowList: [], logLevel: 'warn', listenGraceMs: GRACE_MS, retryScheduleMs: [1_000, 2_000], maxAttempts: 10 } });

beforeAll(async () => {
  assertBuilt();
  database = await openTestDatabase('cli');
  host = await startHost(database);
  adminToken = host.adminToken;
  api = host.api;
  relay = new Relay(Number(new URL(host.host.url).port));
  const relayUrl = await relay.start();
  options = { configDir: join(temporaryDirectory('herald-cfg-'), 'herald'), cwd: temporaryDirectory('herald-cwd-') };
  seedConfig(options.configDir, { url: relayUrl, token: adminToken });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
}, 120_000);
afterAll(async () => {
  await relay?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await host?.close();
  await database?.close();
});

/** A line-by-line reader of one output stream of the child. */
function lines(input: NodeJS.ReadableStream): { next(): Promise<string>; until(pattern: RegExp): Promise<string> } {
  const buffered: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input }).on('line', (text) => {
    const waiter = waiting.shift();
    if (waiter) waiter(text);
    else buffered.push(text);
  });
  const next = (): Promise<string> => (buffered.length > 0 ? Promise.resolve(buffered.shift()!) : new Promise((resolve) => waiting.push(resolve)));
  return {
    next,
    async until(pattern) {
      for (;;) {
        const line = await next();
        if (pattern.test(line)) return line;
      }
    },
  };
}

function startListen(args: readonly string[]) {
  const child = spawn(process.execPath, [heraldBin, 'webhooks', 'listen', ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: options.cwd, HERALD_CONFIG_DIR: options.configDir, CI: 'true' },
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, stdout: lines(child.stdout), stderr: lines(child.stderr) };
}

async function publish(): Promise<string> {
  const published = await api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'apikey.generated', aggregateId: 'k1', data });
  expect(published.status).toBe(201);
  return published.body.eventId;
}

async function delivery(eventId: string) {
  const detail = await api.get<{ deliveries: { status: string; lastHttpStatus?: number }[] }>(`/api/v0.9/webhook-events/${eventId}`);
  return detail.body.deliveries[0];
}

test('a dropped connection resumes the same listener: "Reconnected", no new secret, and the gap\'s delivery arrives', async () => {
  const listen = startListen(['--forward-to', receiverUrl, '--events', 'apikey.*']);
  const secret = /^Signing secret: (whsec_\S+)$/.exec(await listen.stdout.next())?.[1];
  expect(secret).toBeDefined();
  const ready = await listen.stdout.next();
  const listenerId = /\(listener (lst_[0-9a-f]+)\)/.exec(ready)?.[1];
  expect(listenerId).toBeDefined();

  // The network goes away, and stays away while an event is published.
  relay.refusing = true;
  relay.cut();
  expect(await listen.stderr.until(/was lost/)).toMatch(new RegExp(`reconnecting in \\d+ s \\(the instance keeps listener ${listenerId} for 10 s\\)\\.$`));
  const eventId = await publish();
  await expect.poll(() => delivery(eventId), { timeout: 10_000 }).toMatchObject({ status: 'PENDING', lastHttpStatus: 503 });
  relay.refusing = false;

  expect(await listen.stdout.next()).toBe(`Reconnected: listener ${listenerId} resumed, same signing secret.`);
  // The engine's retry reaches the receiver, signed with the secret printed at the start.
  expect(await listen.stdout.next()).toMatch(new RegExp(`^→ 200 apikey\\.generated ${eventId} \\d+ ms$`));
  expect(verify(received.at(-1)!.headers, received.at(-1)!.body, secret!).eventId).toBe(eventId);
  await expect.poll(() => delivery(eventId), { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 200 });

  // Ctrl-C deletes the listener at once, without waiting for its grace period.
  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
  expect((await api.get(`/api/v0.9/webhook-subscribers/${listenerId}`)).status).toBe(404);
}, 60_000);

test('subscribers list --listeners shows the temporary subscriber that a plain list leaves out', async () => {
  const listen = startListen(['--forward-to', receiverUrl, '--json']);
  const { listenerId } = JSON.parse(await listen.stdout.next()) as { listenerId: string };
  const ids = async (args: readonly string[]) => {
    const run = await runHerald(['webhooks', 'subscribers', 'list', ...args], options);
    expect(run.code).toBe(0);
    return (JSON.parse(run.text) as { list: { id: string }[] }).list.map((item) => item.id);
  };
  expect(await ids([])).not.toContain(listenerId);
  expect(await ids(['--listeners'])).toContain(listenerId);
  expect(await ids(['--listeners', '--all', '--limit', '1'])).toContain(listenerId);
  const help = await runHerald(['webhooks', 'subscribers', 'list', '--help'], options);
  expect(help.text).toMatch(/--listeners\s+Also list the temporary subscribers of 'herald webhooks listen'/);
  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
}, 30_000);

test('when the host no longer has the listener (restarted), a new one comes with a warning and its new secret', async () => {
  const listen = startListen(['--forward-to', receiverUrl, '--json']);
  const first = JSON.parse(await listen.stdout.next()) as Record<string, unknown>;
  expect(first).toMatchObject({ kind: 'ready', reconnected: false, secretChanged: false });

  // A restart: the host closes (its listeners go with its memory) and another starts on the same database.
  relay.refusing = true;
  await host.close();
  host = await startHost(database);
  api = host.api.withToken(adminToken);
  relay.targetPort = Number(new URL(host.host.url).port);
  relay.refusing = false;

  const second = JSON.parse(await listen.stdout.next()) as Record<string, unknown>;
  expect(second).toMatchObject({ kind: 'ready', reconnected: true, secretChanged: true, previousListenerId: first.listenerId });
  expect(second.listenerId).not.toBe(first.listenerId);
  expect(second.secret).not.toBe(first.secret);
  expect(await listen.stderr.until(/^Warning/)).toBe(
    `Warning: listener ${String(first.listenerId)} could not be resumed (it expired or the instance restarted); the new listener ${String(second.listenerId)} has a NEW signing secret — update your receiver. Deliveries the old one still had are cancelled ('herald webhooks events redeliver <event>' sends an event again).`,
  );
  // Deliveries now verify with the new secret.
  const eventId = await publish();
  expect(JSON.parse(await listen.stdout.next())).toMatchObject({ kind: 'delivery', eventId, status: 200 });
  expect(verify(received.at(-1)!.headers, received.at(-1)!.body, String(second.secret)).eventId).toBe(eventId);
  listen.child.kill('SIGINT');
  expect(await listen.exit).toBe(0);
}, 60_000);
