// Configuration: defaults, HERALD_* parsing, file ← env precedence, and clear errors at start.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDuration } from '../src/config/duration.js';
import { loadConfig } from '../src/config/load.js';
import { problemsOf } from './support/config-problems.js';

const MONGO = { HERALD_MONGODB_URI: 'mongodb://127.0.0.1:27017/' };
const key = () => randomBytes(32).toString('base64');
const scratch = mkdtempSync(join(tmpdir(), 'herald-config-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ env: MONGO });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      org: 'default',
      mongodbDbName: 'herald',
      signingProfile: 'standard',
      readOnly: false,
      ssrfAllowList: [],
      logLevel: 'info',
      dataDir: './.data',
      drainTimeoutMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    });
    expect(config.masterKeys).toBeUndefined();
  });

  it('reads every HERALD_* variable', () => {
    const [k1, k2] = [key(), key()];
    const config = loadConfig({
      env: {
        ...MONGO,
        HERALD_HOST: '0.0.0.0',
        HERALD_PORT: '9090',
        HERALD_PUBLIC_URL: 'https://herald.example.com',
        HERALD_ORG: 'acme',
        HERALD_MASTER_KEYS: `old:${k1},new:${k2}`,
        HERALD_SIGNING_PROFILE: 'api-portal',
        HERALD_READ_ONLY: 'true',
        HERALD_SSRF_ALLOW_LIST: '127.0.0.0/8, 10.0.0.0/8',
        HERALD_RETRY_SCHEDULE: '5s,30s,2m',
        HERALD_MAX_ATTEMPTS: '4',
        HERALD_RETENTION: '7d',
        HERALD_LEASE_MARGIN: '20s',
        HERALD_MAINTENANCE_INTERVAL: '5s',
        HERALD_BREAKER: '5/2m',
        HERALD_LOG_LEVEL: 'debug',
        HERALD_DATA_DIR: '/var/lib/herald',
        HERALD_DRAIN_TIMEOUT: '20s',
        HERALD_LISTEN_GRACE: '90s',
        HERALD_HEADERS_TIMEOUT: '5s',
        HERALD_REQUEST_TIMEOUT: '1m',
        HERALD_JWT_JWKS_URL: 'https://idp.example.com/jwks.json',
        HERALD_JWT_ISSUER: 'https://idp.example.com/',
        HERALD_JWT_AUDIENCE: 'herald',
        HERALD_JWT_ORG_CLAIM: 'tenant',
      },
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9090,
      publicBaseUrl: 'https://herald.example.com',
      org: 'acme',
      masterKeys: { current: 'new', keys: { old: k1, new: k2 } },
      signingProfile: 'api-portal',
      readOnly: true,
      ssrfAllowList: ['127.0.0.0/8', '10.0.0.0/8'],
      retryScheduleMs: [5_000, 30_000, 120_000],
      maxAttempts: 4,
      retentionMs: 7 * 86_400_000,
      leaseMarginMs: 20_000,
      maintenanceIntervalMs: 5_000,
      breaker: { failures: 5, windowMs: 120_000 },
      logLevel: 'debug',
      dataDir: '/var/lib/herald',
      drainTimeoutMs: 20_000,
      listenGraceMs: 90_000,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 60_000,
      jwt: { jwksUrl: 'https://idp.example.com/jwks.json', issuer: 'https://idp.example.com/', audience: 'herald', orgClaim: 'tenant', clockToleranceSec: 30 },
    });
  });

  it('request timeouts: the headers bound may not exceed the request bound (Node refuses it)', () => {
    expect(problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_HEADERS_TIMEOUT: '40s' } }))).toEqual([
      'headersTimeoutMs (HERALD_HEADERS_TIMEOUT): must be at most requestTimeoutMs (HERALD_REQUEST_TIMEOUT), 30000',
    ]);
    expect(() => loadConfig({ env: { ...MONGO, HERALD_HEADERS_TIMEOUT: '0' } })).toThrow(/HERALD_HEADERS_TIMEOUT/);
  });

  it('HERALD_BREAKER: off turns endpoint health off; a bad value names the variable', () => {
    expect(loadConfig({ env: { ...MONGO, HERALD_BREAKER: 'off' } }).breaker).toBe(false);
    expect(() => loadConfig({ env: { ...MONGO, HERALD_BREAKER: 'often' } })).toThrow(/HERALD_BREAKER/);
    expect(() => loadConfig({ env: { ...MONGO, HERALD_BREAKER: '0/1m' } })).toThrow(/HERALD_BREAKER/);
  });

  it('HERALD_AUTO_DISABLE_AFTER: a duration, 0 or off turns it off; malformed, negative, under a minute or over a year is refused by name', () => {
    expect(loadConfig({ env: MONGO }).autoDisableAfterMs).toBeUndefined();
    expect(loadConfig({ env: { ...MONGO, HERALD_AUTO_DISABLE_AFTER: '3d' } }).autoDisableAfterMs).toBe(3 * 86_400_000);
    expect(loadConfig({ env: { ...MONGO, HERALD_AUTO_DISABLE_AFTER: '12h' } }).autoDisableAfterMs).toBe(12 * 3_600_000);
    for (const off of ['0', 'off', 'OFF']) expect(loadConfig({ env: { ...MONGO, HERALD_AUTO_DISABLE_AFTER: off } }).autoDisableAfterMs).toBe(0);
    for (const bad of ['soon', '-5d', '30s', '400d', '5 days', '1.5d']) {
      const problems = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_AUTO_DISABLE_AFTER: bad } })).join('\n');
      expect(problems, bad).toContain('HERALD_AUTO_DISABLE_AFTER');
    }
    const dir = mkdtempSync(join(scratch, 'auto-disable-'));
    const file = join(dir, 'herald.json');
    writeFileSync(file, JSON.stringify({ autoDisableAfterMs: '5d' }));
    expect(problemsOf(() => loadConfig({ env: MONGO, configFile: file })).join('\n')).toContain('autoDisableAfterMs');
    writeFileSync(file, JSON.stringify({ autoDisableAfterMs: 86_400_000 }));
    expect(loadConfig({ env: MONGO, configFile: file }).autoDisableAfterMs).toBe(86_400_000);
  });

  it('retention: HERALD_RETENTION=0 keeps forever, under a minute is refused; per-type windows come from the file', () => {
    expect(loadConfig({ env: { ...MONGO, HERALD_RETENTION: '0' } }).retentionMs).toBe(0);
    expect(() => loadConfig({ env: { ...MONGO, HERALD_RETENTION: '30s' } })).toThrow(/HERALD_RETENTION/);
    const dir = mkdtempSync(join(scratch, 'retention-'));
    const file = join(dir, 'herald.json');
    writeFileSync(file, JSON.stringify({ retentionByEventType: { 'audit.logged': 0, 'ping.sent': 86_400_000 } }));
    expect(loadConfig({ env: MONGO, configFile: file }).retentionByEventType).toEqual({ 'audit.logged': 0, 'ping.sent': 86_400_000 });
    writeFileSync(file, JSON.stringify({ retentionByEventType: { 'ping.sent': 1_000 } }));
    expect(problemsOf(() => loadConfig({ env: MONGO, configFile: file })).join('\n')).toContain('retentionByEventType');
  });

  it('a single HERALD_MASTER_KEY gets the id k1; HERALD_MASTER_KEY_CURRENT picks among several', () => {
    const k = key();
    expect(loadConfig({ env: { ...MONGO, HERALD_MASTER_KEY: k } }).masterKeys).toEqual({ current: 'k1', keys: { k1: k } });
    const [a, b] = [key(), key()];
    const rotated = loadConfig({ env: { ...MONGO, HERALD_MASTER_KEYS: `a:${a},b:${b}`, HERALD_MASTER_KEY_CURRENT: 'a' } });
    expect(rotated.masterKeys?.current).toBe('a');
  });

  it('a JSON file is overridden by the environment, field by field', () => {
    const dir = mkdtempSync(join(scratch, 'config-'));
    const file = join(dir, 'herald.json');
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(file, JSON.stringify({ mongodbUri: 'mongodb://file/', port: 7000, org: 'from-file', jwt: { publicKeyPem: pem, audience: 'file-aud' } }));
    const config = loadConfig({ env: { HERALD_CONFIG: file, HERALD_PORT: '7001', HERALD_JWT_AUDIENCE: 'env-aud' } });
    expect(config).toMatchObject({ mongodbUri: 'mongodb://file/', port: 7001, org: 'from-file', jwt: { publicKeyPem: pem, audience: 'env-aud' } });
  });

  it('reports every problem at once, named by its variable', () => {
    const problems = problemsOf(() =>
      loadConfig({ env: { ...MONGO, HERALD_PORT: 'eighty', HERALD_SIGNING_PROFILE: 'fancy', HERALD_READ_ONLY: 'maybe', HERALD_RETRY_SCHEDULE: '5s,soon' } }),
    );
    expect(problems.join('\n')).toContain('HERALD_PORT (port)');
    expect(problems.join('\n')).toContain('HERALD_SIGNING_PROFILE');
    expect(problems.join('\n')).toContain('HERALD_READ_ONLY');
    expect(problems.join('\n')).toContain('HERALD_RETRY_SCHEDULE');
  });

  it.each([
    [{}, 'mongodbUri is required'],
    [{ ...MONGO, HERALD_MASTER_KEY: Buffer.alloc(31).toString('base64') }, 'masterKeys'],
    [{ ...MONGO, HERALD_MASTER_KEYS: `a:${randomBytes(32).toString('base64')}`, HERALD_MASTER_KEY_CURRENT: 'b' }, 'masterKeys.current'],
    [{ ...MONGO, HERALD_JWT_ISSUER: 'https://idp/' }, 'exactly one of jwksUrl'],
    [{ ...MONGO, HERALD_JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' }, 'not a PEM-encoded public key'],
    [{ HERALD_MONGODB_URI: 'postgres://x' }, 'mongodbUri'],
    [{ ...MONGO, HERALD_ORG: 'bad org!' }, 'org'],
  ])('refuses %j with a message about %s', (env, fragment) => {
    expect(problemsOf(() => loadConfig({ env })).join('\n')).toContain(fragment);
  });

  it('refuses unknown fields and unreadable files', () => {
    const dir = mkdtempSync(join(scratch, 'config-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ mongodbUri: 'mongodb://x/', prot: 1 }));
    expect(problemsOf(() => loadConfig({ env: {}, configFile: file })).join('\n')).toContain('prot: is not allowed');
    expect(problemsOf(() => loadConfig({ env: {}, configFile: join(dir, 'missing.json') })).join('\n')).toContain('cannot read');
    writeFileSync(file, '{not json');
    expect(problemsOf(() => loadConfig({ env: {}, configFile: file })).join('\n')).toContain('not a JSON object');
  });

  it('never puts key material into error messages', () => {
    const secretKey = Buffer.alloc(40, 7).toString('base64');
    const error = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_MASTER_KEY: secretKey } })).join('\n');
    expect(error).not.toContain(secretKey);
  });
});

describe('parseDuration', () => {
  it.each([
    ['250', 250],
    ['250ms', 250],
    ['5s', 5_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['30d', 2_592_000_000],
  ])('%s → %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '5x', '-1s', '1.5h', 'soon'])('%j is not a duration', (text) => expect(parseDuration(text)).toBeUndefined());
});
