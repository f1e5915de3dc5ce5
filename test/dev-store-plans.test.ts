// The dev and test store's PostgreSQL settings that keep FerretDB v1's pushed-down equalities index
// scans (test/support/ferretdb.ts, scripts/store/postgresql-gin-twins.sql): FerretDB's prepared
// statements are planned per call, so the field they filter on is known to the planner; and the
// GIN twins have no pending list for every lookup to read.
import { MongoClient } from 'mongodb';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startFerretDb, type DevFerretDb } from './support/ferretdb.js';

let store: DevFerretDb;
let postgres: pg.Client;
let table: string;

beforeAll(async () => {
  store = await startFerretDb();
  const client = await new MongoClient(store.uri).connect();
  try {
    const things = client.db('herald_plans').collection<{ _id: string; key: string }>('things');
    await things.createIndex({ key: 1 }, { name: 'by_key' });
    await things.insertMany(Array.from({ length: 3_000 }, (_, i) => ({ _id: `t${i}`, key: `k-${i}` })));
    // Through FerretDB, more than the five runs after which PostgreSQL may keep a generic plan.
    for (let i = 0; i < 8; i++) expect(await things.findOne({ key: `k-${i}` })).toMatchObject({ _id: `t${i}` });
  } finally {
    await client.close();
  }
  postgres = new pg.Client({ connectionString: store.postgresUrl });
  await postgres.connect();
  const found = await postgres.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'herald_plans' AND tablename LIKE 'things%'");
  table = `"herald_plans"."${found.rows[0]!.tablename}"`;
  await postgres.query('ANALYZE ' + table);
}, 120_000);

afterAll(async () => {
  await postgres?.end();
  await store?.stop();
});

/** The plan of FerretDB's statement shape, prepared as FerretDB prepares it, after it ran `runs` times. */
async function planAfterRuns(name: string, runs: number): Promise<string> {
  await postgres.query(`PREPARE ${name}(text, jsonb) AS SELECT _jsonb FROM ${table} WHERE _jsonb->$1 @> $2`);
  for (let i = 0; i < runs; i++) await postgres.query(`EXECUTE ${name}('key', '"k-${i}"')`);
  const plan = await postgres.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('key', '"k-42"')`);
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

test("FerretDB's statements are planned per call, so an equality reaches the field's index however often it runs", async () => {
  expect((await postgres.query('SHOW plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_custom_plan');
  const plan = await planAfterRuns('per_call', 8);
  expect(plan).toMatch(/Index Scan on \S*by_key\S*_gin/);
  expect(plan).not.toMatch(/Seq Scan/);
});

test('a generic plan of the same statement cannot use the index: why the setting is there', async () => {
  await postgres.query('SET plan_cache_mode = force_generic_plan');
  try {
    expect(await planAfterRuns('generic', 1)).toMatch(/Seq Scan/);
  } finally {
    await postgres.query('RESET plan_cache_mode');
  }
});

test('every GIN twin is built without a pending list', async () => {
  const twins = await postgres.query<{ relname: string; reloptions: string[] | null }>(
    "SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'herald_plans' AND c.relname LIKE '%\\_gin'",
  );
  expect(twins.rows.length).toBeGreaterThanOrEqual(2); // `_id` and `key`
  for (const twin of twins.rows) expect(twin.reloptions ?? []).toContain('fastupdate=off');
});
