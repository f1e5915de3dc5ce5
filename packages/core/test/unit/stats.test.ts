// This process's delivery figures (engine/stats.ts), pure.
import { expect, test } from 'vitest';
import { DeliveryStats } from '../../src/engine/stats.js';

test('attempts per subscriber by outcome; first attempts feed the latency histogram', () => {
  const stats = new DeliveryStats();
  const created = new Date(0);
  stats.record({ orgId: 'acme', subscriberHandle: 'billing', attempts: 0, createdAt: created }, 'retried', new Date(40));
  stats.record({ orgId: 'acme', subscriberHandle: 'billing', attempts: 1, createdAt: created }, 'delivered', new Date(60_000));
  stats.record({ orgId: 'acme', subscriberHandle: 'crm', attempts: 0, createdAt: created }, 'delivered', new Date(2_000));
  expect(stats.bySubscriber()).toEqual([
    { orgId: 'acme', subscriber: 'billing', delivered: 1, failed: 0, retried: 1 },
    { orgId: 'acme', subscriber: 'crm', delivered: 1, failed: 0, retried: 0 },
  ]);
  const latency = stats.firstAttemptLatency();
  expect(latency.count).toBe(2);
  expect(latency.sum).toBeCloseTo(2.04);
  expect(latency.cumulative[latency.bounds.indexOf(0.05)]).toBe(1);
  expect(latency.cumulative[latency.bounds.indexOf(2.5)]).toBe(2);
});
