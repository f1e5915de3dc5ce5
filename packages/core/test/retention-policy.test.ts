// An organization's retention policy: set and read through herald.retention, applied by the
// retention job per organization, against a real MongoDB-wire server. Unsettled events stay.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { resolveConfig } from '../src/engine/config.js';
import { createMaintenance } from '../src/engine/jobs.js';
import { DeliveryStore } from '../src/engine/store/index.js';
import { ValidationError, type Scope } from '../src/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { detectStoreCompat } from '../src/storage/compat.js';
import type { EventDocument } from '../src/storage/documents.js';
import { openTestHerald, type TestHerald } from './helpers.js';

let t: TestHerald;
const acme: Scope = { orgId: 'ret-acme', actor: 'ops' };
const other: Scope = { orgId: 'ret-other', actor: 'ops' };
const DAY = 86_400_000;

beforeAll(async () => {
  t = await openTestHerald('core_retention', { delivery: { retentionMs: 30 * DAY, retentionByEventType: { 'ping.sent': DAY } } });
});
afterAll(async () => {
  await t.close();
});

test('an organization reads the host default until it sets its own; {} returns it to the host', async () => {
  expect(await t.herald.retention.get(acme)).toEqual({
    settledEventsDays: 30, byEventType: { 'ping.sent': 1 }, source: 'host', hostDefault: { settledEventsDays: 30, byEventType: { 'ping.sent': 1 } }, updatedAt: null,
  });
  const set = await t.herald.retention.set(acme, { settledEventsDays: 7, byEventType: { 'audit.logged': 0 } });
  expect(set).toMatchObject({ settledEventsDays: 7, byEventType: { 'audit.logged': 0 }, source: 'organization' });
  expect(await t.herald.retention.get(acme)).toEqual(set);
  // Another organization is untouched.
  expect((await t.herald.retention.get(other)).source).toBe('host');
  expect(await t.herald.retention.set(acme, {})).toMatchObject({ source: 'host', settledEventsDays: 30 });
  expect((await t.herald.retention.get(acme)).source).toBe('host');
  await expect(t.herald.retention.set(acme, { settledEventsDays: -1 })).rejects.toBeInstanceOf(ValidationError);
  expect((await t.herald.retention.get(acme)).source).toBe('host');
});

test('the retention job applies each organization\'s policy, the host\'s to the rest, and never removes an unsettled event', async () => {
  await t.herald.retention.set(acme, { settledEventsDays: 2, byEventType: { 'audit.logged': 0 } });
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY);
  const event = (_id: string, orgId: string, eventType: string, status: EventDocument['status'], createdAt: Date): EventDocument => ({
    _id, orgId, eventType, aggregateType: 'a', aggregateId: 'x', status, occurredAt: createdAt, createdAt, updatedAt: createdAt,
    data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 0, openDeliveries: 0, failedDeliveries: 0,
  });
  const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
  await store.collections.events.insertMany([
    event('acme-3d', acme.orgId, 'order.created', 'ALL_DELIVERED', daysAgo(3)), // past acme's 2 days
    event('acme-1d', acme.orgId, 'order.created', 'FAILED', daysAgo(1)),
    event('acme-audit', acme.orgId, 'audit.logged', 'ALL_DELIVERED', daysAgo(400)), // acme keeps audits forever
    event('acme-open', acme.orgId, 'order.created', 'DISPATCHED', daysAgo(90)), // unsettled: stays
    event('other-3d', other.orgId, 'order.created', 'ALL_DELIVERED', daysAgo(3)), // host: 30 days
    event('other-40d', other.orgId, 'order.created', 'ALL_DELIVERED', daysAgo(40)),
    event('other-ping', other.orgId, 'ping.sent', 'ALL_DELIVERED', daysAgo(2)), // host: pings 1 day
  ]);
  const config = resolveConfig({ retentionMs: 30 * DAY, retentionByEventType: { 'ping.sent': DAY } });
  const jobs = createMaintenance({ db: t.database.db, prefix: 'herald_', owner: 'retention-test', store, config, logger: silentLogger, onRecovered: () => undefined });
  expect(await jobs.retention()).toBe(3);
  const left = await store.collections.events.find({ orgId: { $in: [acme.orgId, other.orgId] } }, { projection: { _id: 1 } }).toArray();
  expect(left.map((e) => e._id).sort()).toEqual(['acme-1d', 'acme-audit', 'acme-open', 'other-3d']);
});

test('the retention job removes in paced steps, and stop() ends a pass that is resting between them', async () => {
  const org = 'ret-paced';
  const at = new Date(Date.now() - 40 * DAY);
  const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
  await store.collections.events.insertMany(Array.from({ length: 12 }, (_, i): EventDocument => ({
    _id: `paced-${i}`, orgId: org, eventType: 'order.created', aggregateType: 'a', aggregateId: 'x', status: 'ALL_DELIVERED', occurredAt: at, createdAt: at, updatedAt: at,
    data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 0, openDeliveries: 0, failedDeliveries: 0,
  })));
  const config = resolveConfig({ retentionMs: 30 * DAY });
  // 4 events a step, resting 999× as long as a step took: the second step is far away.
  const jobs = createMaintenance({ db: t.database.db, prefix: 'herald_', owner: 'retention-paced', store, config, logger: silentLogger, onRecovered: () => undefined, retentionPace: { batchEvents: 4, share: 0.001 } });
  const pass = jobs.retention();
  await expect.poll(() => store.collections.events.countDocuments({ orgId: org })).toBe(8);
  const stopped = performance.now();
  await jobs.stop();
  expect(await pass).toBe(4);
  expect(performance.now() - stopped).toBeLessThan(1_000);
  expect(await store.collections.events.countDocuments({ orgId: org })).toBe(8);
  expect(jobs.pruned).toBe(4);
});
