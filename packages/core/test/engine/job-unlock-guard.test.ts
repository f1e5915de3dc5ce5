// Agenda's unawaited lock release (engine/job-unlock-guard.ts) against a real store whose client is
// closed under it: unguarded it rejects, which in Agenda reaches no handler; guarded it settles.
import { MongoBackend } from '@agendajs/mongo-backend';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { guardUnawaitedUnlocks } from '../../src/engine/job-unlock-guard.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase('job_unlock_guard');
});
afterAll(async () => {
  await database?.close();
});

test('a lock release whose write fails settles quietly once guarded', async () => {
  const unguarded = new MongoBackend({ mongo: database.db, collection: 'jobs' }).repository;
  const guarded = new MongoBackend({ mongo: database.db, collection: 'jobs' }).repository;
  guardUnawaitedUnlocks(guarded);
  const job = { _id: new ObjectId(), name: 'maintenance', nextRunAt: new Date(), priority: 0, type: 'normal' } as never;
  await expect(guarded.unlockJob(job)).resolves.toBeUndefined(); // the store answers: a plain release
  await database.client.close();
  await expect(unguarded.unlockJob(job)).rejects.toThrow();
  await expect(guarded.unlockJob(job)).resolves.toBeUndefined();
});
