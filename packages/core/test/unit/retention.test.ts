import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/engine/config.js';
import { retentionGroups } from '../../src/engine/retention.js';

const now = new Date('2025-06-01T00:00:00Z');
const DAY = 86_400_000;

describe('retentionGroups', () => {
  it('covers every type not overridden with the default window, and each override with its own', () => {
    expect(retentionGroups({ retentionMs: 30 * DAY, retentionByEventType: { 'audit.logged': 365 * DAY, 'ping.sent': DAY } }, now)).toEqual([
      { match: { eventType: { $nin: ['audit.logged', 'ping.sent'] } }, cutoff: new Date(now.getTime() - 30 * DAY) },
      { match: { eventType: 'audit.logged' }, cutoff: new Date(now.getTime() - 365 * DAY) },
      { match: { eventType: 'ping.sent' }, cutoff: new Date(now.getTime() - DAY) },
    ]);
  });

  it('0 keeps forever: no group for it, and the overrides still apply', () => {
    expect(retentionGroups({ retentionMs: 0, retentionByEventType: { 'ping.sent': DAY, 'audit.logged': 0 } }, now)).toEqual([
      { match: { eventType: 'ping.sent' }, cutoff: new Date(now.getTime() - DAY) },
    ]);
    expect(retentionGroups({ retentionMs: DAY, retentionByEventType: { 'audit.logged': 0 } }, now)).toEqual([
      { match: { eventType: { $nin: ['audit.logged'] } }, cutoff: new Date(now.getTime() - DAY) },
    ]);
  });

  it('the engine config defaults to 30 days, takes 0, and refuses negative or non-finite windows', () => {
    expect(resolveConfig({}).retentionMs).toBe(30 * DAY);
    expect(resolveConfig({ retentionMs: 0 }).retentionMs).toBe(0);
    expect(resolveConfig({ retentionByEventType: { 'a.b': 0 } }).retentionByEventType).toEqual({ 'a.b': 0 });
    expect(() => resolveConfig({ retentionMs: -1 })).toThrow('delivery.retentionMs must be a number ≥ 0');
    expect(() => resolveConfig({ retentionByEventType: { 'a.b': Number.NaN } })).toThrow('delivery.retentionByEventType["a.b"]');
  });
});
