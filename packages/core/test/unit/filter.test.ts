import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFilter, compileFilter, FILTER_LIMITS, jsonEqual, type FilterEnvelope, type PayloadFilter } from '../../src/rules/filter.js';

const event: FilterEnvelope = {
  type: 'order.created',
  aggregateType: 'order',
  aggregateId: 'ord_42',
  occurredAt: new Date('2025-03-01T10:00:00.000Z'),
  data: { amount: 150, currency: 'EUR', customer: { tier: 'gold', tags: ['vip', 'eu'] }, note: null, code: 'AB-123' },
};
const none = new Set<string>();
const matches = (filter: PayloadFilter, on: FilterEnvelope = event): boolean => {
  expect(checkFilter(filter, none)).toEqual([]);
  return compileFilter(filter)(on);
};

describe('compileFilter', () => {
  it('treats a literal as $eq and ANDs the keys of one object', () => {
    expect(matches({ type: 'order.created', 'data.currency': 'EUR' })).toBe(true);
    expect(matches({ type: 'order.created', 'data.currency': 'USD' })).toBe(false);
    expect(matches({ 'data.customer.tags': ['vip', 'eu'] })).toBe(true);
    expect(matches({ 'data.customer': { tier: 'gold', tags: ['vip', 'eu'] } })).toBe(true);
    expect(matches({ 'data.note': null })).toBe(true);
  });

  it('applies each operator', () => {
    expect(matches({ 'data.amount': { $gt: 100, $lte: 150 } })).toBe(true);
    expect(matches({ 'data.amount': { $gte: 151 } })).toBe(false);
    expect(matches({ 'data.amount': { $lt: 150 } })).toBe(false);
    expect(matches({ 'data.currency': { $ne: 'USD' } })).toBe(true);
    expect(matches({ 'data.currency': { $in: ['USD', 'EUR'] } })).toBe(true);
    expect(matches({ 'data.currency': { $nin: ['USD', 'EUR'] } })).toBe(false);
    expect(matches({ 'data.code': { $startsWith: 'AB-', $endsWith: '123' } })).toBe(true);
    expect(matches({ aggregateId: { $startsWith: 'cus_' } })).toBe(false);
    expect(matches({ 'data.customer.tier': { $exists: true }, 'data.customer.age': { $exists: false } })).toBe(true);
  });

  it('combines with $and, $or and $not', () => {
    expect(matches({ $or: [{ 'data.currency': 'USD' }, { 'data.amount': { $gt: 100 } }] })).toBe(true);
    expect(matches({ $and: [{ 'data.currency': 'EUR' }, { 'data.amount': { $gt: 200 } }] })).toBe(false);
    expect(matches({ $not: { aggregateType: 'order' } })).toBe(false);
    expect(matches({ $not: { $or: [{ type: 'x.y' }, { 'data.amount': 1 }] } })).toBe(true);
  });

  it('matches nothing but $ne, $nin and $exists:false on a missing field', () => {
    expect(matches({ 'data.missing': { $ne: 1 } })).toBe(true);
    expect(matches({ 'data.missing': { $nin: [1] } })).toBe(true);
    expect(matches({ 'data.missing': { $exists: false } })).toBe(true);
    expect(matches({ 'data.missing': null })).toBe(false);
    expect(matches({ 'data.missing': { $lt: 1 } })).toBe(false);
    expect(matches({ 'data.amount.deeper': { $exists: true } })).toBe(false);
  });

  it('compares only numbers with numbers and strings with strings', () => {
    expect(matches({ 'data.amount': { $gt: '1' } })).toBe(false);
    expect(matches({ 'data.currency': { $gt: 'A', $lt: 'F' } })).toBe(true);
    expect(matches({ 'data.code': { $startsWith: 'A' }, 'data.amount': { $startsWith: '1' } })).toBe(false);
  });

  it('compares occurredAt as an instant, whatever the offset', () => {
    expect(matches({ occurredAt: { $gte: '2025-03-01T11:00:00+01:00' } })).toBe(true);
    expect(matches({ occurredAt: { $gt: '2025-03-01T10:00:00Z' } })).toBe(false);
    expect(matches({ occurredAt: { $lt: '2025-03-02T00:00:00Z' } })).toBe(true);
    expect(matches({ occurredAt: '2025-03-01T10:00:00.000Z' })).toBe(true);
  });

  it('does not read inherited properties', () => {
    expect(matches({ 'data.constructor': { $exists: true } })).toBe(false);
  });
});

describe('checkFilter', () => {
  const issues = (filter: unknown, sensitive: ReadonlySet<string> = none) => checkFilter(filter, sensitive);

  it('names the path of each bad part', () => {
    expect(issues({ 'data.amount': { $gt: true }, $or: [{ 'data.x': { $regex: 'a' } }, 5] })).toEqual([
      { field: 'filter.data.amount.$gt', message: 'must be a number or a string' },
      { field: 'filter.$or[0].data.x.$regex', message: 'unknown operator "$regex"' },
      { field: 'filter.$or[1]', message: 'must be a JSON object' },
    ]);
  });

  it('refuses unknown fields and operators, and wrong operand types', () => {
    expect(issues({ payload: 1 })[0]).toMatchObject({ field: 'filter.payload' });
    expect(issues({ $where: 'x' })[0]).toMatchObject({ field: 'filter.$where' });
    expect(issues({ 'data.a': { $and: [] } })[0]).toMatchObject({ field: 'filter.data.a.$and' });
    expect(issues({ 'data.a': { $in: 'x' } })[0]).toMatchObject({ field: 'filter.data.a.$in', message: 'must be an array' });
    expect(issues({ 'data.a': { $exists: 1 } })[0]).toMatchObject({ message: 'must be a boolean' });
    expect(issues({ 'data.a': { $endsWith: 1 } })[0]).toMatchObject({ message: 'must be a string' });
    expect(issues({ occurredAt: { $gt: 'yesterday' } })[0]).toMatchObject({ field: 'filter.occurredAt.$gt', message: 'must be an ISO 8601 date-time' });
    expect(issues({ $or: [] })[0]).toMatchObject({ field: 'filter.$or' });
    expect(issues({ $not: [] })[0]).toMatchObject({ field: 'filter.$not' });
    expect(issues({ 'data.a': { $eq: 1, plain: 2 } })[0]).toMatchObject({ message: 'must not mix operators ($…) and plain keys' });
    expect(issues({ 'data.a..b': 1 })[0]).toMatchObject({ field: 'filter.data.a..b' });
    expect(issues([])).toEqual([{ field: 'filter', message: 'must be a JSON object' }]);
  });

  it('refuses a filter deeper than 8 levels or larger than 4 KB', () => {
    let deep: PayloadFilter = { type: 'a.b' };
    for (let level = 0; level < FILTER_LIMITS.maxDepth; level++) deep = { $not: deep };
    expect(issues(deep)).toEqual([{ field: 'filter', message: 'must nest at most 8 levels deep' }]);
    const big = { 'data.a': { $in: Array.from({ length: 1000 }, (_, index) => `value-${index}`) } };
    expect(issues(big)[0]!.message).toMatch(/^must be at most 4096 bytes/);
  });

  it('refuses a sensitive field, however deep the path and wherever in the filter', () => {
    const sensitive = new Set(['cardNumber']);
    expect(issues({ $or: [{ 'data.cardNumber.last4': '4242' }] }, sensitive)).toEqual([
      { field: 'filter.$or[0].data.cardNumber.last4', message: '"cardNumber" is a sensitive field and cannot be filtered on' },
    ]);
    expect(issues({ 'data.card': 1 }, sensitive)).toEqual([]);
  });
});

// ---- properties ----

const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', 'ab', ''), fc.boolean(), fc.constant(null));
const field = fc.constantFrom('data.x', 'data.y', 'data.z.w', 'aggregateId');
const condition: fc.Arbitrary<PayloadFilter> = fc.oneof(
  fc.record({ f: field, v: scalar }).map(({ f, v }) => ({ [f]: v })),
  fc.record({ f: field, op: fc.constantFrom('$eq', '$ne', '$gt', '$gte', '$lt', '$lte'), v: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b')) }).map(({ f, op, v }) =>
    op === '$eq' || op === '$ne' || typeof v === 'number' || typeof v === 'string' ? { [f]: { [op]: v } } : { [f]: v },
  ),
  fc.record({ f: field, op: fc.constantFrom('$in', '$nin'), v: fc.array(scalar, { maxLength: 3 }) }).map(({ f, op, v }) => ({ [f]: { [op]: v } })),
  fc.record({ f: field, v: fc.boolean() }).map(({ f, v }) => ({ [f]: { $exists: v } })),
);
const filterArb: fc.Arbitrary<PayloadFilter> = fc.letrec<{ filter: PayloadFilter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    condition,
    fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((all) => ({ $and: all })),
    fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((any) => ({ $or: any })),
    tie('filter').map((inner) => ({ $not: inner })),
  ),
})).filter;
const envelopeArb: fc.Arbitrary<FilterEnvelope> = fc
  .record({ x: fc.option(scalar, { nil: undefined }), y: fc.option(scalar, { nil: undefined }), w: fc.option(scalar, { nil: undefined }), id: fc.constantFrom('a', 'b', 'ab') })
  .map(({ x, y, w, id }) => ({
    type: 't.a',
    aggregateType: 't',
    aggregateId: id,
    occurredAt: new Date(0),
    data: { ...(x !== undefined ? { x } : {}), ...(y !== undefined ? { y } : {}), ...(w !== undefined ? { z: { w } } : {}) },
  }));

describe('filter properties', () => {
  it('every generated filter within the limits is accepted, and evaluating it never throws', () => {
    fc.assert(
      fc.property(filterArb, envelopeArb, (filter, envelope) => {
        const problems = checkFilter(filter, none);
        if (problems.length > 0) return problems.every((problem) => problem.field === 'filter' && /levels deep|bytes/.test(problem.message));
        return typeof compileFilter(filter)(envelope) === 'boolean';
      }),
    );
  });

  it('$not inverts, $and is every and $or is some', () => {
    fc.assert(
      fc.property(fc.array(filterArb, { minLength: 1, maxLength: 3 }), envelopeArb, (parts, envelope) => {
        const each = parts.map((part) => compileFilter(part)(envelope));
        expect(compileFilter({ $not: parts[0]! })(envelope)).toBe(!each[0]);
        expect(compileFilter({ $and: parts })(envelope)).toBe(each.every(Boolean));
        expect(compileFilter({ $or: parts })(envelope)).toBe(each.some(Boolean));
      }),
    );
  });

  it('$ne is the negation of $eq, $nin of $in, and $in of one value is $eq', () => {
    fc.assert(
      fc.property(field, scalar, envelopeArb, (name, value, envelope) => {
        const eq = compileFilter({ [name]: { $eq: value } })(envelope);
        expect(compileFilter({ [name]: { $ne: value } })(envelope)).toBe(!eq);
        expect(compileFilter({ [name]: { $in: [value] } })(envelope)).toBe(eq);
        expect(compileFilter({ [name]: { $nin: [value] } })(envelope)).toBe(!eq);
      }),
    );
  });

  it('$gt and $lte split every comparable value, as do $lt and $gte', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 }), (pivot, value) => {
        const on = { ...event, data: { x: value } };
        expect(compileFilter({ 'data.x': { $gt: pivot } })(on)).toBe(!compileFilter({ 'data.x': { $lte: pivot } })(on));
        expect(compileFilter({ 'data.x': { $lt: pivot } })(on)).toBe(!compileFilter({ 'data.x': { $gte: pivot } })(on));
      }),
    );
  });

  it('jsonEqual agrees with comparing JSON texts of key-sorted values', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      const sorted = (value: unknown): unknown => (Array.isArray(value) ? value.map(sorted) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, v]) => [k, sorted(v)])) : value);
      expect(jsonEqual(a, a)).toBe(true);
      expect(jsonEqual(a, b)).toBe(JSON.stringify(sorted(a)) === JSON.stringify(sorted(b)));
    }));
  });
});

it('checkFilter bounds the depth of a filter of any depth before walking it (an embedder\'s preview too)', () => {
  let deep: Record<string, unknown> = { $eq: 1 };
  for (let level = 0; level < 100_000; level++) deep = { $not: deep };
  expect(checkFilter({ 'data.amount': deep }, new Set())).toEqual([{ field: 'filter', message: `must nest at most ${FILTER_LIMITS.maxDepth} levels deep` }]);
});
