import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/queue/work-queue.js';

describe('WorkQueue', () => {
  it('deduplicates queued keys and never runs one key concurrently', async () => {
    const runs: string[] = [];
    let concurrentSameKey = 0;
    const running = new Set<string>();
    const queue = new WorkQueue(async (key) => {
      if (running.has(key)) concurrentSameKey += 1;
      running.add(key);
      runs.push(key);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running.delete(key);
    }, { concurrency: 4 });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    await new Promise((resolve) => setTimeout(resolve, 5));
    queue.add('a'); // while 'a' runs: once more afterwards
    await new Promise((resolve) => setTimeout(resolve, 100));
    await queue.idle();
    expect(runs.sort()).toEqual(['a', 'a', 'b']);
    expect(concurrentSameKey).toBe(0);
    await queue.stop();
  });

  it('retries failures with growing delays and resets after success', async () => {
    const attempts: number[] = [];
    let failuresLeft = 3;
    const queue = new WorkQueue(async () => {
      attempts.push(Date.now());
      if (failuresLeft-- > 0) throw new Error('boom');
    }, { concurrency: 1, backoff: { baseMs: 20, maxMs: 1_000 } });
    queue.add('k');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(attempts).toHaveLength(4);
    const gaps = attempts.slice(1).map((time, index) => time - (attempts[index] as number));
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.3);
    expect(gaps[2]!).toBeGreaterThan(gaps[1]! * 1.3);
    expect(queue.retrying).toBe(0);
    await queue.stop();
  });
});
