// Starts the real host (startHost: MongoDB on the run's FerretDB, core, Fastify on 127.0.0.1:0) for
// one test file, with captured logs and helpers to mint tokens.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { loadConfig } from '../../src/config/load.js';
import type { HostConfig } from '../../src/config/schema.js';
import { startHost, type HostMode, type RunningHost } from '../../src/host.js';
import { createLogger } from '../../src/logging/logger.js';
import { ApiClient } from './api-client.js';

export interface TestHost {
  host: RunningHost;
  config: HostConfig;
  database: TestDatabase;
  api: ApiClient;
  /** The bootstrap admin token (every scope). */
  adminToken: string;
  /** Every log line written so far (JSON strings). */
  logs: string[];
  dataDir: string;
  createToken(scopes: string[], options?: { name?: string; expiresAt?: Date }): Promise<{ token: string; id: string }>;
  close(): Promise<void>;
}

export function testMasterKeys() {
  return { current: 'test1', keys: { test1: randomBytes(32).toString('base64') } };
}

export async function startTestHost(
  options: { overrides?: Record<string, unknown>; mode?: HostMode; database?: TestDatabase } = {},
): Promise<TestHost> {
  const database = options.database ?? (await openTestDatabase('server'));
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-server-test-'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    env: {},
    overrides: {
      mongodbUri: database.uri,
      mongodbDbName: database.dbName,
      host: '127.0.0.1',
      port: 0,
      dataDir,
      logLevel: 'info',
      masterKeys: testMasterKeys(),
      // Test sinks listen on loopback; the SSRF guard must let them through (dev/test only).
      ssrfAllowList: ['127.0.0.0/8'],
      retryScheduleMs: [200, 400],
      maxAttempts: 3,
      drainTimeoutMs: 2_000,
      ...options.overrides,
    },
  });
  let host: RunningHost;
  try {
    host = await startHost(config, { mode: options.mode, logger: createLogger('info', sink) });
  } catch (error) {
    if (!options.database) await database.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const api = new ApiClient(host.url);
  if (options.mode !== 'engine-only') await api.loadOpenApi();
  const tokens = new TokenStore(database.db);
  return {
    host,
    config,
    database,
    api: api.withToken(host.bootstrap?.token),
    adminToken: host.bootstrap?.token ?? '',
    logs,
    dataDir,
    async createToken(scopes, tokenOptions = {}) {
      const { token, info } = await tokens.create({ name: tokenOptions.name ?? 'test', scopes, expiresAt: tokenOptions.expiresAt });
      return { token, id: info._id };
    },
    async close() {
      await host.close();
      if (!options.database) await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
