// Seeded API tokens (HERALD_SEED_TOKENS_FILE): validated as configuration without echoing values,
// upserted by name on every start (no duplicates across restarts), authenticating with exactly their
// scopes, and a changed value replacing the old one while the principal id stays the same.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { TOKENS_COLLECTION } from '../src/auth/token-store.js';
import { loadConfig } from '../src/config/load.js';
import { problemsOf } from './support/config-problems.js';
import { startTestHost } from './support/test-host.js';

const MONGO = { HERALD_MONGODB_URI: 'mongodb://127.0.0.1:27017/' };
const newToken = () => `hrd_${randomBytes(32).toString('base64url')}`;

let dir: string;
function seedFile(content: unknown): string {
  const file = join(dir, `seed-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-seed-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('seed tokens configuration', () => {
  it('is read from HERALD_SEED_TOKENS_FILE or the seedTokensFile field', () => {
    const file = seedFile([{ name: 'operator', token: newToken(), scopes: ['dp:webhook_subscriber:manage'] }]);
    expect(loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: file } }).seedTokensFile).toBe(file);
    const configFile = seedFile({ seedTokensFile: file });
    expect(loadConfig({ env: MONGO, configFile }).seedTokensFile).toBe(file);
  });

  it('reports every bad entry by variable, path and index, without quoting token values', () => {
    const secretLooking = `hrd_${'x'.repeat(40)}`; // wrong length
    const good = newToken();
    const file = seedFile([
      { name: 'ok', token: good, scopes: ['dp:event:read'] },
      { name: 'bad token', token: secretLooking, scopes: ['dp:nope'], extra: 1 },
      { name: 'ok', token: good, scopes: [] },
      'not an object',
    ]);
    const problems = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: file } }));
    const text = problems.join('\n');
    expect(text).toContain(`HERALD_SEED_TOKENS_FILE ${file}[1].name`);
    expect(text).toContain('[1].token: must be "hrd_" followed by 43 base64url characters');
    expect(text).toContain('[1].scopes[0]: unknown scope "dp:nope"');
    expect(text).toContain('[1].extra: unknown field');
    expect(text).toContain('[3]: must be an object');
    expect(text).not.toContain(secretLooking);
    expect(text).not.toContain(good);

    const duplicates = seedFile([{ name: 'ok', token: good, scopes: [] }, { name: 'ok', token: good, scopes: [] }]);
    const duplicateProblems = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: duplicates } })).join('\n');
    expect(duplicateProblems).toContain('[1].name: "ok" appears twice');
    expect(duplicateProblems).toContain('[1].token: the same token is given twice');
    expect(duplicateProblems).not.toContain(good);
  });

  it('a missing file, invalid JSON or a non-array is a configuration error', () => {
    expect(problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: join(dir, 'missing.json') } }))[0]).toMatch(/cannot read the file \(ENOENT\)/);
    expect(problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: seedFile('{nope') } }))[0]).toMatch(/not valid JSON/);
    expect(problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_SEED_TOKENS_FILE: seedFile({ name: 'x' }) } }))[0]).toMatch(/must be a JSON array/);
  });
});

describe('seeding at start', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase('server-seed');
  });
  afterAll(async () => {
    await database?.close();
  });

  async function withHost<T>(file: string, action: (t: Awaited<ReturnType<typeof startTestHost>>) => Promise<T>): Promise<T> {
    const t = await startTestHost({ database, overrides: { seedTokensFile: file } });
    try {
      return await action(t);
    } finally {
      await t.close();
    }
  }

  it('upserts by name: idempotent across starts, exact scopes, a new value replaces the old one', async () => {
    const first = newToken();
    const file = seedFile([{ name: 'herald-operator', token: first, scopes: ['dp:webhook_subscriber:manage'] }]);

    const principal = await withHost(file, async (t) => {
      // Seeding does not stand in for the bootstrap admin token of a fresh database.
      expect(t.adminToken).toMatch(/^hrd_/);
      const me = await t.api.get<{ principal: string; name: string; scopes: string[] }>('/api/v1/me', { token: first });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ name: 'herald-operator', scopes: ['dp:webhook_subscriber:manage'] });
      expect((await t.api.get('/api/v0.9/webhook-subscribers', { token: first })).status).toBe(200);
      expect((await t.api.get('/api/v0.9/webhook-events', { token: first })).status).toBe(403);
      expect((await t.api.get('/api/v1/orgs/default/projects', { token: first })).status).toBe(403);
      expect(t.logs.join('\n')).not.toContain(first);
      expect(t.logs.some((line) => line.includes('"outcome":"created"'))).toBe(true);
      return me.body.principal;
    });

    await withHost(file, async (t) => {
      expect((await t.api.get<{ principal: string }>('/api/v1/me', { token: first })).body.principal).toBe(principal);
      expect(t.logs.some((line) => line.includes('"outcome":"unchanged"'))).toBe(true);
    });
    const stored = await database.db.collection(TOKENS_COLLECTION).find({ name: 'herald-operator' }).toArray();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(first);

    const second = newToken();
    const rotated = seedFile([{ name: 'herald-operator', token: second, scopes: ['dp:webhook_subscriber:manage', 'dp:event:read'] }]);
    await withHost(rotated, async (t) => {
      expect((await t.api.get('/api/v1/me', { token: first })).status).toBe(401);
      const me = await t.api.get<{ principal: string; scopes: string[] }>('/api/v1/me', { token: second });
      expect(me.status).toBe(200);
      // Same name, same principal: what the old value created still counts as created by it.
      expect(me.body).toMatchObject({ principal, scopes: ['dp:event:read', 'dp:webhook_subscriber:manage'] });
      expect((await t.api.get('/api/v0.9/webhook-events', { token: second })).status).toBe(200);
      expect(t.logs.join('\n')).not.toContain(second);
    });
    expect(await database.db.collection(TOKENS_COLLECTION).countDocuments({ name: 'herald-operator' })).toBe(1);
  });

  it('leaves a value that `token create` issued alone (it keeps working with its own scopes)', async () => {
    const issued = await withHost(seedFile([]), (t) => t.createToken(['dp:event:read'], { name: 'made-by-hand' }));
    await withHost(seedFile([{ name: 'pasted', token: issued.token, scopes: ['dp:webhook_subscriber:manage'] }]), async (t) => {
      const me = await t.api.get<{ principal: string; scopes: string[] }>('/api/v1/me', { token: issued.token });
      expect(me.body).toMatchObject({ principal: issued.id, scopes: ['dp:event:read'] });
      expect(t.logs.some((line) => line.includes('"outcome":"issued-elsewhere"'))).toBe(true);
    });
    expect(await database.db.collection(TOKENS_COLLECTION).countDocuments({ name: 'pasted' })).toBe(0);
  });
});
