// Subscriber input rules (src/subscribers/validation.ts) that need no database.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/shared/errors.js';
import { validateSubscriberCreate, validateSubscriberUpdate } from '../../src/subscribers/validation.js';
import { nestsDeeperThan } from '../../src/validation/fields.js';

const valid = { displayName: 'Billing', targetUrl: 'https://hooks.example.com/billing' };

function issuesOf(run: () => unknown): Array<{ field: string; message: string }> {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  return [];
}

describe('events', () => {
  it('refuses an empty list on create and update: it would read as none but receive every event', () => {
    const expected = [{ field: 'events', message: 'must list at least one pattern; ["*"] means every event' }];
    expect(issuesOf(() => validateSubscriberCreate({ ...valid, events: [] }))).toEqual(expected);
    expect(issuesOf(() => validateSubscriberUpdate({ events: [] }))).toEqual(expected);
  });

  it('stores an omitted list on create as ["*"], and leaves it alone on update', () => {
    expect(validateSubscriberCreate(valid).events).toEqual(['*']);
    expect(validateSubscriberCreate({ ...valid, events: ['a.*', 'a.*'] }).events).toEqual(['a.*']);
    expect(validateSubscriberUpdate({ enabled: false }).events).toBeUndefined();
  });
});

describe('filter depth', () => {
  it('refuses a filter nested 100,000 levels deep with the filter bound, not a stack overflow', () => {
    let deep: Record<string, unknown> = { type: 'a.b' };
    for (let level = 0; level < 100_000; level += 1) deep = { $not: deep };
    const expected = [{ field: 'filter', message: 'must nest at most 8 levels deep' }];
    expect(issuesOf(() => validateSubscriberCreate({ ...valid, filter: deep }))).toEqual(expected);
    expect(issuesOf(() => validateSubscriberUpdate({ filter: deep }))).toEqual(expected);
  });

  it('nestsDeeperThan counts containers, as the filter bound does', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: 1 }, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1] }, 1)).toBe(true);
    expect(nestsDeeperThan({ a: [1], b: { c: { d: 1 } } }, 2)).toBe(true);
    expect(nestsDeeperThan({ a: [1], b: { c: 1 } }, 2)).toBe(false);
  });
});
