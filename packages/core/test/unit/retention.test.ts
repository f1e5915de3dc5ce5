import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/engine/config.js';
import { retentionGroups } from '../../src/rules/retention-windows.js';
import { effectiveRetention, retentionView, storedRetention } from '../../src/rules/retention-policy.js';
import { validateRetentionInput } from '../../src/retention/validation.js';
import { ValidationError } from '../../src/shared/errors.js';

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

describe('organizations with a policy of their own', () => {
  const host = { retentionMs: 30 * DAY, retentionByEventType: { 'ping.sent': DAY } };

  it('each such organization gets its windows; every other organization follows the host', () => {
    const orgs = new Map([['acme', { retentionMs: 7 * DAY, retentionByEventType: {} }], ['keeper', { retentionMs: 0, retentionByEventType: {} }]]);
    expect(retentionGroups(host, now, orgs)).toEqual([
      { match: { orgId: { $nin: ['acme', 'keeper'] }, eventType: { $nin: ['ping.sent'] } }, cutoff: new Date(now.getTime() - 30 * DAY) },
      { match: { orgId: { $nin: ['acme', 'keeper'] }, eventType: 'ping.sent' }, cutoff: new Date(now.getTime() - DAY) },
      { match: { orgId: 'acme', eventType: { $nin: [] } }, cutoff: new Date(now.getTime() - 7 * DAY) },
    ]);
  });

  it('a field the organization left out follows the host', () => {
    const stored = storedRetention({ settledEventsDays: 14 }, now, 'ops');
    expect(stored).toEqual({ settledEventsDays: 14, updatedAt: now, updatedBy: 'ops' });
    expect(effectiveRetention(host, stored)).toEqual({ retentionMs: 14 * DAY, retentionByEventType: { 'ping.sent': DAY } });
    const typesOnly = storedRetention({ byEventType: { 'audit.logged': 365, 'a.b': 0 } }, now, undefined);
    expect(typesOnly.byEventType).toEqual([{ eventType: 'a.b', days: 0 }, { eventType: 'audit.logged', days: 365 }]);
    expect(effectiveRetention(host, typesOnly)).toEqual({ retentionMs: 30 * DAY, retentionByEventType: { 'a.b': 0, 'audit.logged': 365 * DAY } });
    expect(effectiveRetention(host, undefined)).toBe(host);
  });

  it('the view says where the policy comes from and shows the host default, in days', () => {
    expect(retentionView({ retentionMs: DAY / 2, retentionByEventType: {} }, undefined)).toEqual({
      settledEventsDays: 0.5, byEventType: {}, source: 'host', hostDefault: { settledEventsDays: 0.5, byEventType: {} }, updatedAt: null,
    });
    expect(retentionView(host, storedRetention({ settledEventsDays: 0 }, now, 'ops'))).toEqual({
      settledEventsDays: 0, byEventType: { 'ping.sent': 1 }, source: 'organization', hostDefault: { settledEventsDays: 30, byEventType: { 'ping.sent': 1 } }, updatedAt: now.toISOString(),
    });
  });

  it('input: days are integers 0–36500, types are event types, at most 100 of them, nothing else', () => {
    expect(validateRetentionInput({ settledEventsDays: 0, byEventType: { 'audit.logged': 36_500 } })).toEqual({ settledEventsDays: 0, byEventType: { 'audit.logged': 36_500 } });
    expect(validateRetentionInput({})).toEqual({});
    const issues = (input: unknown) => {
      try {
        validateRetentionInput(input);
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).errors;
      }
    };
    expect(issues(null)).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    expect(issues({ settledEventsDays: -1 })).toEqual([{ field: 'settledEventsDays', message: 'must be at least 0' }]);
    expect(issues({ settledEventsDays: 1.5 })).toEqual([{ field: 'settledEventsDays', message: 'must be an integer' }]);
    expect(issues({ settledEventsDays: '30' })).toEqual([{ field: 'settledEventsDays', message: 'must be an integer' }]);
    expect(issues({ settledEventsDays: 36_501 })).toEqual([{ field: 'settledEventsDays', message: 'must be at most 36500' }]);
    expect(issues({ keep: 'forever' })).toEqual([{ field: 'keep', message: 'is not a known property' }]);
    expect(issues({ byEventType: [] })).toEqual([{ field: 'byEventType', message: 'must be an object of event type → days' }]);
    expect(issues({ byEventType: { 'Not A Type': 1, 'a.b': -2 } }).map((issue) => issue.field)).toEqual(['byEventType.Not A Type', 'byEventType.a.b']);
    expect(issues({ byEventType: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`t.n${i}`, 1])) })).toEqual([
      { field: 'byEventType', message: 'must name at most 100 event types' },
    ]);
  });
});
