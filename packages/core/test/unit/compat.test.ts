// The FerretDB v1 side of the store-compatibility seam: its lane, its transient retries, its watchdog.
import { afterEach, expect, test, vi } from 'vitest';
import { MongoBulkWriteError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { clientTimeoutOptions, isStoreUnavailable, isTransientStoreError, StoreUnavailableError } from '../../src/storage/availability.js';
import { retryTransient, storeCompat, UNREACHABLE_WINDOW_MS } from '../../src/storage/compat.js';

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

test('the lane runs one operation at a time, the engine\'s first', async () => {
  const compat = storeCompat('ferretdb-v1');
  const order: string[] = [];
  let release!: () => void;
  const first = compat.write(() => new Promise<void>((resolve) => { release = resolve; }).then(() => { order.push('running'); }));
  const publish = compat.write(async () => { order.push('publish'); });
  const engine = compat.write(async () => { order.push('engine'); }, true);
  release();
  await Promise.all([first, publish, engine]);
  expect(order).toEqual(['running', 'engine', 'publish']);
});

test('MongoDB: no lane, nothing held back', async () => {
  const compat = storeCompat('mongodb');
  const order: string[] = [];
  let release!: () => void;
  const slow = compat.write(() => new Promise<void>((resolve) => { release = resolve; }).then(() => { order.push('slow'); }));
  await compat.write(async () => { order.push('fast'); });
  release();
  await slow;
  expect(order).toEqual(['fast', 'slow']);
});

test('an unreachable store fails the operations queued behind the one that found out, and new ones for a moment', async () => {
  vi.useFakeTimers();
  const compat = storeCompat('ferretdb-v1');
  const unreachable = new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:1', { type: 'Unknown', servers: new Map(), stale: false, compatible: true, heartbeatFrequencyMS: 10_000, localThresholdMS: 15, setName: null, maxElectionId: null, maxSetVersion: null, commonWireVersion: 0, logicalSessionTimeoutMinutes: null } as never);
  let queuedRan = false;
  const first = compat.retry(async () => { throw unreachable; });
  const queued = compat.retry(async () => { queuedRan = true; });
  await expect(first).rejects.toBe(unreachable);
  await expect(queued).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(queuedRan).toBe(false);
  await expect(compat.write(async () => 'new')).rejects.toBeInstanceOf(StoreUnavailableError);
  await vi.advanceTimersByTimeAsync(UNREACHABLE_WINDOW_MS);
  await expect(compat.write(async () => 'probe')).resolves.toBe('probe');
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
