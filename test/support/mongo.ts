// Per-test-file MongoDB database on the run's shared server (see global-setup.ts).
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { inject } from 'vitest';

export interface TestDatabase {
  uri: string;
  client: MongoClient;
  db: Db;
  dbName: string;
  /** Drops the database and closes the client. */
  close(): Promise<void>;
}

export function testMongoUri(): string {
  return inject('mongoUri');
}

export function uniqueDbName(prefix = 'test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function openTestDatabase(prefix?: string): Promise<TestDatabase> {
  const uri = testMongoUri();
  const client = new MongoClient(uri);
  await client.connect();
  const dbName = uniqueDbName(prefix);
  const db = client.db(dbName);
  return {
    uri,
    client,
    db,
    dbName,
    async close() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}
