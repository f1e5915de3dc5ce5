// The FerretDB v1 side of the store-compatibility seam: its lane, its transient retries, its watchdog.
import { afterEach, expect, test, vi } from 'vitest';
import { MongoBulkWriteError, MongoClientClosedError, MongoNetworkError, MongoServerClosedError, MongoServerSelectionError } from 'mongodb';
import { clientTimeoutOptions, isStoreUnavailable, isTransientStoreError, StoreUnavailableError, withinDeadline } from '../../src/storage/availability.js';
import { retryTransient, storeCompat } from '../../src/storage/compat.js';
import { UNREACHABLE_WINDOW_MS } from '../../src/storage/store-lane.js';

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

/** An operation that runs until `finish()` is called, recording when it started. */
function held(started: string[], name: string): { operation: () => Promise<string>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => { finish = resolve; });
  return { operation: async () => { started.push(name); await done; return name; }, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('the lane runs the engine\'s operations two at a time and first, others one at a time beside them', async () => {
  const compat = storeCompat('ferretdb-v1');
  const started: string[] = [];
  const ops = ['engine1', 'engine2', 'engine3', 'publish1', 'publish2'].map((name) => ({ name, ...held(started, name) }));
  const running = ops.map(({ name, operation }) => compat.write(operation, name.startsWith('engine')));
  await settle();
  expect(started).toEqual(['engine1', 'engine2', 'publish1']);
  ops[3]!.finish(); // publish1
  await settle();
  expect(started).toEqual(['engine1', 'engine2', 'publish1', 'publish2']);
  ops[0]!.finish();
  await settle();
  expect(started.at(-1)).toBe('engine3');
  for (const op of ops) op.finish();
  expect(await Promise.all(running)).toEqual(ops.map(({ name }) => name));
});

test('while deliveries are behind, other operations wait until no engine operation runs', async () => {
  const compat = storeCompat('ferretdb-v1');
  const started: string[] = [];
  compat.deliveryBacklog(true);
  const engine = held(started, 'engine');
  const publish = held(started, 'publish');
  const running = [compat.write(engine.operation, true), compat.write(publish.operation)];
  await settle();
  expect(started).toEqual(['engine']);
  engine.finish();
  await settle();
  expect(started).toEqual(['engine', 'publish']);
  publish.finish();
  await Promise.all(running);

  // Caught up: the next publish runs beside the engine again.
  compat.deliveryBacklog(false);
  const again = [held(started, 'engine again'), held(started, 'publish again')];
  const second = [compat.write(again[0]!.operation, true), compat.write(again[1]!.operation)];
  await settle();
  expect(started.slice(2)).toEqual(['engine again', 'publish again']);
  for (const op of again) op.finish();
  await Promise.all(second);
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
  // A client closed and connected again under an operation (storage/client-keeper.ts).
  expect(isStoreUnavailable(new MongoClientClosedError())).toBe(true);
  expect(isStoreUnavailable(new MongoServerClosedError())).toBe(true);
  // The pool's errors are not exported by the driver; their names are its API.
  expect(isStoreUnavailable(Object.assign(new Error('Attempted to check out a connection from closed connection pool'), { name: 'MongoPoolClosedError' }))).toBe(true);
  expect(isStoreUnavailable(Object.assign(new Error('Timed out while checking out a connection from connection pool'), { name: 'MongoWaitQueueTimeoutError' }))).toBe(true);
  // A command written to a connection the store just closed: the socket's own error, as the driver
  // passes it on.
  const ended = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
  expect(isStoreUnavailable(ended)).toBe(true);
  expect(isStoreUnavailable(new MongoBulkWriteError(ended as never, {} as never))).toBe(true);
  expect(isStoreUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }))).toBe(true);
  expect(isStoreUnavailable(Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: 'ENOENT' }))).toBe(false);
  expect(clientTimeoutOptions('mongodb://h/db')).toEqual({ serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 60_000 });
  expect(clientTimeoutOptions('mongodb://h/db?replicaSet=rs&serverselectiontimeoutms=200')).toEqual({ socketTimeoutMS: 60_000 });
});

test('an operation that never settles is given up at its deadline as "unavailable"; one that settles in time is untouched', async () => {
  vi.useFakeTimers();
  const never = withinDeadline(new Promise<never>(() => undefined), 5_000);
  let given: unknown;
  const outcome = never.then(() => 'settled', (error: unknown) => (given = error));
  await vi.advanceTimersByTimeAsync(4_999);
  expect(given).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  const error = await outcome;
  expect(isStoreUnavailable(error)).toBe(true);
  expect((error as Error).message).toContain('5000 ms');
  await expect(withinDeadline(Promise.resolve('ok'), 5_000)).resolves.toBe('ok');
  const failure = new Error('duplicate key');
  await expect(withinDeadline(Promise.reject(failure), 5_000)).rejects.toBe(failure);
  expect(vi.getTimerCount()).toBe(0);
});

test('on both stores an operation the driver never ends is given up at the deadline, and on the lane its slot is free again', async () => {
  vi.useFakeTimers();
  for (const name of ['mongodb', 'ferretdb-v1'] as const) {
    const compat = storeCompat(name, 1_000);
    // Two: as many as the lane runs of the engine's at once.
    const stuck = [1, 2].map(() => compat.retry(() => new Promise<never>(() => undefined), true).then(() => undefined, (error: unknown) => error));
    await vi.advanceTimersByTimeAsync(1_000);
    for (const error of await Promise.all(stuck)) expect(isStoreUnavailable(error)).toBe(true);
    await vi.advanceTimersByTimeAsync(UNREACHABLE_WINDOW_MS);
    await expect(compat.retry(async () => 'next', true)).resolves.toBe('next');
  }
});
