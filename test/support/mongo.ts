// Per-test-file MongoDB database on the run's shared server (see global-setup.ts).
import { randomBytes } from 'node:crypto';
import { MongoClient, MongoServerError, type Db, type Document } from 'mongodb';
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

/** The server's answer to a command it does not know (MongoDB's `CommandNotFound`). */
const COMMAND_NOT_FOUND = 59;

/**
 * Whether the test store knows this command, asked by running it (harmless commands only). Not
 * every MongoDB-wire server has every command — mongo-java-server, the memory-mongo store, has no
 * `explain` — so a test that needs one skips, naming it, instead of failing on the store.
 */
export async function storeHasCommand(db: Db, command: Document): Promise<boolean> {
  try {
    await db.command(command);
    return true;
  } catch (error) {
    if (error instanceof MongoServerError && error.code === COMMAND_NOT_FOUND) return false;
    throw error;
  }
}
