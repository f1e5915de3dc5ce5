// The store watch's judgement from the pool's events: silence is operations waiting with none answered.
import { EventEmitter } from 'node:events';
import type { MongoClient } from 'mongodb';
import { expect, test, vi } from 'vitest';
import { reportStoreSilence } from '../../src/storage/silence-report.js';
import { watchStore } from '../../src/storage/store-watch.js';

/** A client's pool events: `out` checks connection `id` out, `answer` checks it back in. */
function fakeClient() {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    out: (id: number) => emitter.emit('connectionCheckedOut', { address: '127.0.0.1:27017', connectionId: id }),
    answer: (id: number) => emitter.emit('connectionCheckedIn', { address: '127.0.0.1:27017', connectionId: id }),
  });
}

test('silence: 0 with nothing waiting, the oldest wait with no answer since, the time since the last answer otherwise', () => {
  let clock = 1_000;
  const client = fakeClient();
  const watch = watchStore(client as unknown as MongoClient, { now: () => clock });
  expect(watch.silentForMs()).toBe(0);
  client.out(1);
  client.out(2);
  clock += 700;
  expect(watch.silentForMs()).toBe(700);
  expect(watch.waiting).toBe(2);
  client.answer(2);
  clock += 300;
  // Busy, not stuck: an answer came 300 ms ago although operation 1 waits for 1 s.
  expect(watch.silentForMs()).toBe(300);
  expect(watch.sinceLastAnswerMs()).toBe(300);
  client.answer(1);
  expect(watch.silentForMs()).toBe(0);
  expect(watch.waiting).toBe(0);
  watch.stop();
  client.out(3);
  expect(watch.waiting).toBe(0);
});

test('connections are told apart by server as well as by id', () => {
  let clock = 0;
  const client = fakeClient();
  const watch = watchStore(client as unknown as MongoClient, { now: () => clock });
  client.emit('connectionCheckedOut', { address: 'a:27017', connectionId: 1 });
  client.emit('connectionCheckedOut', { address: 'b:27017', connectionId: 1 });
  clock += 100;
  client.emit('connectionCheckedIn', { address: 'a:27017', connectionId: 1 });
  expect(watch.waiting).toBe(1);
  watch.stop();
});

test('one error line when the silence passes the threshold, one info line when the store answers again', async () => {
  vi.useFakeTimers();
  try {
    const client = fakeClient();
    const watch = watchStore(client as unknown as MongoClient);
    const lines: Array<{ level: string; message: string }> = [];
    const logger = {
      debug() {},
      info: (_details: object, message: string) => lines.push({ level: 'info', message }),
      warn() {},
      error: (_details: object, message: string) => lines.push({ level: 'error', message }),
    };
    const report = reportStoreSilence(watch, logger, 5_000);
    client.out(1);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(lines).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error' });
    expect(lines[0]!.message).toMatch(/answered no command for \d+ s while 1 wait/);
    client.answer(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lines.map(({ level }) => level)).toEqual(['error', 'info']);
    report.stop();
  } finally {
    vi.useRealTimers();
  }
});

test('a lone slow command is not silence once the store answers the watch\'s own small read', async () => {
  vi.useFakeTimers();
  try {
    const client = fakeClient();
    let probes = 0;
    // The probe goes through the same client: its pool events are what the watch sees.
    const probe = async () => {
      probes += 1;
      client.out(100 + probes);
      client.answer(100 + probes);
    };
    const watch = watchStore(client as unknown as MongoClient, { probe, probeAfterMs: 500 });
    client.out(1); // the slow one, unanswered throughout
    await vi.advanceTimersByTimeAsync(3_000);
    expect(probes).toBeGreaterThan(0);
    expect(watch.silentForMs()).toBeLessThan(1_000);

    // A store that answers nothing: the probe waits too, and the silence grows.
    const stuck = fakeClient();
    let stuckProbes = 0;
    const stuckWatch = watchStore(stuck as unknown as MongoClient, {
      probe: () => {
        stuckProbes += 1;
        stuck.out(200);
        return new Promise(() => {});
      },
    });
    stuck.out(1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(stuckProbes).toBe(1); // one probe at a time
    expect(stuckWatch.silentForMs()).toBeGreaterThanOrEqual(3_000);
    watch.stop();
    stuckWatch.stop();
  } finally {
    vi.useRealTimers();
  }
});
