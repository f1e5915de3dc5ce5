// The real Herald host (@herald/server) for operator tests: on the run's FerretDB, on a fixed
// loopback port so it can be stopped and started again (the "Herald is down" scenario), plus a
// loopback sink that records deliveries.
import { startHost, loadConfig, TokenStore, createLogger, type RunningHost } from '@herald/server';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ferretdb.js';
import { openTestDatabase, type TestDatabase } from './mongo.js';

export interface HeraldForTests {
  url: string;
  /** Bootstrap admin token (every scope). */
  adminToken: string;
  database: TestDatabase;
  createToken(name: string, scopes: string[]): Promise<{ token: string; principal: string }>;
  /**
   * The subscriber's secret as stored at rest, opened with the test's master key (the documented
   * SealedSecret format: AES-256-GCM, base64 iv/tag/ciphertext). Proves the exact value arrived.
   */
  storedSecret(handle: string): Promise<string | undefined>;
  /** Authenticated JSON request to the host; returns status and parsed body. */
  request(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startHeraldForTests(): Promise<HeraldForTests> {
  const database = await openTestDatabase('operator');
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-operator-host-'));
  const port = await freePort();
  const masterKey = randomBytes(32);
  const config = loadConfig({
    env: {},
    overrides: {
      mongodbUri: database.uri,
      mongodbDbName: database.dbName,
      host: '127.0.0.1',
      port,
      dataDir,
      logLevel: 'warn',
      masterKeys: { current: 'k1', keys: { k1: masterKey.toString('base64') } },
      ssrfAllowList: ['127.0.0.0/8'],
      retryScheduleMs: [200, 400],
      maxAttempts: 3,
      drainTimeoutMs: 1_000,
    },
  });
  const logger = createLogger('warn');
  let host: RunningHost | undefined = await startHost(config, { logger });
  const adminToken = host.bootstrap?.token ?? '';
  const url = `http://127.0.0.1:${port}`;
  const tokens = new TokenStore(database.db);
  return {
    url,
    adminToken,
    database,
    async createToken(name, scopes) {
      const { token, info } = await tokens.create({ name, scopes });
      return { token, principal: info.principalId };
    },
    async storedSecret(handle) {
      const document = await database.db.collection<{ handle: string; secret?: { iv: string; tag: string; ciphertext: string } }>('herald_subscribers').findOne({ handle });
      if (!document?.secret) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(document.secret.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(document.secret.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(document.secret.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    },
    async request(method, path, token, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    },
    async stop() {
      await host?.close();
      host = undefined;
    },
    async start() {
      host ??= await startHost(config, { logger });
    },
    async close() {
      await host?.close();
      host = undefined;
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RecordedDelivery {
  /** Request path: tells apart the subscribers that share the sink. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export async function startSink(): Promise<{ url: string; deliveries: RecordedDelivery[]; close(): Promise<void> }> {
  const deliveries: RecordedDelivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
