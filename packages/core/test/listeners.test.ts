// Ephemeral listener subscribers (`herald webhooks listen`): hidden from lists, renewable, expirable.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Scope } from '../src/index.js';
import { isSelfTarget } from '../src/engine/http/sender.js';
import { openTestHerald, type TestHerald } from './helpers.js';

let t: TestHerald;
const scope: Scope = { orgId: 'org-listen', actor: 'alice' };

beforeAll(async () => {
  t = await openTestHerald('core_listeners');
});
afterAll(async () => {
  await t.close();
});

test('a listener is left out of lists unless asked for, and can be read, renewed and found expired', async () => {
  await t.herald.subscribers.create(scope, { displayName: 'kept', targetUrl: 'https://hooks.example.com/a' });
  const past = new Date(Date.now() - 1_000);
  const listener = await t.herald.subscribers.create(
    scope,
    { displayName: 'listener', targetUrl: 'http://127.0.0.1:9/internal/listen/x', events: ['apikey.*'] },
    { listener: { expiresAt: past } },
  );
  const plain = await t.herald.subscribers.list(scope);
  expect(plain.list.map((item) => item.displayName)).toEqual(['kept']);
  expect(plain.pagination.total).toBe(1);
  const all = await t.herald.subscribers.list(scope, { listeners: true });
  expect(all.list.map((item) => item.displayName).sort()).toEqual(['kept', 'listener']);
  expect((await t.herald.subscribers.get(scope, listener.id)).targetUrl).toBe('http://127.0.0.1:9/internal/listen/x');

  expect(await t.herald.subscribers.expiredListeners(scope, new Date())).toEqual([listener.id]);
  expect(await t.herald.subscribers.renewListener(scope, listener.id, new Date(Date.now() + 60_000))).toBe(true);
  expect(await t.herald.subscribers.expiredListeners(scope, new Date())).toEqual([]);
  // Ordinary subscribers are never renewed or expired as listeners.
  const kept = plain.list[0]!;
  expect(await t.herald.subscribers.renewListener(scope, kept.id, new Date())).toBe(false);
  await t.herald.subscribers.delete(scope, listener.id);
  expect(await t.herald.subscribers.renewListener(scope, listener.id, new Date())).toBe(false);
});

test('only URLs under the exact self-target prefix skip the SSRF guard', () => {
  const prefix = 'http://127.0.0.1:8080/internal/listen/';
  expect(isSelfTarget('http://127.0.0.1:8080/internal/listen/abc', prefix)).toBe(true);
  expect(isSelfTarget('http://127.0.0.1:8080/internal/other', prefix)).toBe(false);
  expect(isSelfTarget('http://127.0.0.1:8081/internal/listen/abc', prefix)).toBe(false);
  expect(isSelfTarget('http://127.0.0.1:8080.evil.test/internal/listen/abc', prefix)).toBe(false);
  expect(isSelfTarget('http://127.0.0.1:8080/internal/listen/abc', undefined)).toBe(false);
  // A bare origin (or no trailing slash) is never accepted as a prefix.
  expect(isSelfTarget('http://127.0.0.1:8080/anything', 'http://127.0.0.1:8080/')).toBe(false);
  expect(isSelfTarget('http://127.0.0.1:8080/internal/listen/abc', 'http://127.0.0.1:8080/internal/listen')).toBe(false);
});
