// bench/command-shape.ts, which BENCH_PROFILE_COMMANDS=shape groups store commands by: field names
// and operators kept, values elided.
import { describe, expect, it } from 'vitest';
import { commandShape, filterShape } from '../bench/command-shape.js';

describe('command-shape', () => {
  it('keeps field names and operators, and elides values, ids and dates', () => {
    expect(filterShape({ status: 'PENDING', nextAttemptAt: { $lte: new Date() }, subscriberId: { $nin: ['a', 'b'] } })).toBe('{status:?,nextAttemptAt:{$lte:?},subscriberId:{$nin:[…]}}');
    expect(filterShape({ $or: [{ _id: 'x', attempts: 1 }, { _id: 'y', attempts: 2 }] })).toBe('{$or:[{_id:?,attempts:?}…]}');
    expect(filterShape({ nextAttemptAt: null })).toBe('{nextAttemptAt:?}');
  });

  it("tells a command's statements, sort and limit", () => {
    expect(commandShape({ find: 'q', filter: { status: 'PENDING' }, sort: { nextAttemptAt: 1 }, limit: 500 })).toBe('{status:?} sort nextAttemptAt limit');
    expect(commandShape({ find: 'q', filter: {}, sort: new Map([['createdAt', -1], ['_id', -1]]) })).toBe('{} sort createdAt,_id');
    expect(commandShape({ update: 'q', updates: [{ q: { _id: 'a' }, u: {} }, { q: { _id: 'b' }, u: {} }] })).toBe('{_id:?} ×2');
    expect(commandShape({ delete: 'q', deletes: [{ q: { _id: { $in: ['a'] } }, limit: 0 }] })).toBe('{_id:{$in:[…]}}');
    expect(commandShape({ findAndModify: 'e', query: { _id: 'a' } })).toBe('{_id:?}');
    expect(commandShape({ aggregate: 'q', pipeline: [{ $match: { eventId: { $in: ['a'] } } }, { $group: {} }] })).toBe('$match {eventId:{$in:[…]}}');
    expect(commandShape({ insert: 'q', documents: [{}] })).toBe('');
  });
});
