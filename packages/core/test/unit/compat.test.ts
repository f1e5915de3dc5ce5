// The FerretDB v1 side of the store-compatibility seam: its transient retries and its bounds.
import { afterEach, expect, test, vi } from 'vitest';
import { MongoBulkWriteError, MongoNetworkError } from 'mongodb';
import { clientTimeoutOptions, isStoreUnavailable, isTransientStoreError, StoreUnavailableError } from '../../src/storage/availability.js';
import { retryTransient, storeCompat } from '../../src/storage/compat.js';

afterEach(() => {
  vi.useRealTimers();
});

const busy = Object.assign(new Error('database is locked (5) (SQLITE_BUSY)'), { code: 1 });

test('only FerretDB\'s backend-busy errors are transient', () => {
  expect(isTransientStoreError(busy)).toBe(true);
  expect(isTransientStoreError(Object.assign(new Error('UNIQUE constraint failed'), { code: 1 }))).toBe(false);
  expect(isTransientStoreError(Object.assign(new Error('E11000'), { code: 11000 }))).toBe(false);
});

test('a transient error is retried with backoff; others and the last one surface', async () => {
  const delays: number[] = [];
  let calls = 0;
  const value = await retryTransient(async () => {
    calls += 1;
    if (calls < 3) throw busy;
    return 'ok';
  }, async (ms) => { delays.push(ms); });
  expect(value).toBe('ok');
  expect(delays).toHaveLength(2);
  await expect(retryTransient(async () => { throw busy; }, async () => undefined)).rejects.toBe(busy);
  await expect(retryTransient(async () => { throw new Error('other'); }, async () => undefined)).rejects.toThrow('other');
});

test('both sides run operations side by side: a slow one holds nobody back', async () => {
  for (const name of ['mongodb', 'ferretdb-v1'] as const) {
    const compat = storeCompat(name);
    const order: string[] = [];
    let release!: () => void;
    const slow = compat.write(() => new Promise<void>((resolve) => { release = resolve; }).then(() => { order.push('slow'); }));
    await compat.write(async () => { order.push('fast'); });
    release();
    await slow;
    expect(order).toEqual(['fast', 'slow']);
  }
});

test('FerretDB v1 bounds every multi-statement write and claims through unique keys; MongoDB needs neither', () => {
  expect(storeCompat('ferretdb-v1')).toMatchObject({ maxWriteBatch: 50, uniqueKeyClaims: true });
  expect(storeCompat('mongodb')).toMatchObject({ maxWriteBatch: Number.POSITIVE_INFINITY, uniqueKeyClaims: false });
});

test('which errors mean the store is unreachable, and the client timeouts a connection string does not set', () => {
  expect(isStoreUnavailable(new StoreUnavailableError())).toBe(true);
  expect(isStoreUnavailable(busy)).toBe(true);
  expect(isStoreUnavailable(new Error('boom'))).toBe(false);
  expect(isStoreUnavailable(Object.assign(new Error('E11000'), { code: 11000 }))).toBe(false);
  // insertMany and bulkWrite wrap a lost connection in a MongoBulkWriteError (as the driver does).
  const lost = new MongoNetworkError('connection 9 to 127.0.0.1:27017 closed');
  expect(isStoreUnavailable(new MongoBulkWriteError(lost, {} as never))).toBe(true);
  expect(isStoreUnavailable(new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [] }, {} as never))).toBe(false);
  expect(clientTimeoutOptions('mongodb://h/db')).toEqual({ serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 60_000 });
  expect(clientTimeoutOptions('mongodb://h/db?replicaSet=rs&serverselectiontimeoutms=200')).toEqual({ socketTimeoutMS: 60_000 });
});
