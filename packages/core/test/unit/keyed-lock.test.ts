import { expect, test } from 'vitest';
import { KeyedLock } from '../../src/subscribers/keyed-lock.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test('work under one key runs one at a time, in order; other keys run alongside', async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  const job = (key: string, name: string) =>
    lock.run(key, async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name;
    });
  const results = await Promise.all([job('a', 'a1'), job('a', 'a2'), job('b', 'b1')]);
  expect(results).toEqual(['a1', 'a2', 'b1']);
  expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
  expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
});

test('a failure does not block the next job', async () => {
  const lock = new KeyedLock();
  await expect(lock.run('k', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
  expect(await lock.run('k', async () => 'next')).toBe('next');
});
