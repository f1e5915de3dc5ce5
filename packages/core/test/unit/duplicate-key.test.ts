import { describe, expect, test } from 'vitest';
import { isDuplicateKeyError } from '../../src/storage/collections.js';

describe('isDuplicateKeyError', () => {
  test('recognises MongoDB code 11000', () => {
    expect(isDuplicateKeyError({ code: 11000, message: 'E11000 duplicate key' })).toBe(true);
  });

  test('recognises FerretDB v1 update violations on either backend', () => {
    expect(isDuplicateKeyError({ code: 1, message: 'UNIQUE constraint failed: idx.handle' })).toBe(true);
    expect(isDuplicateKeyError({ code: 1, message: 'duplicate key value violates unique constraint "x" (SQLSTATE 23505)' })).toBe(true);
  });

  test('leaves every other error alone', () => {
    expect(isDuplicateKeyError({ code: 1, message: 'disk I/O error' })).toBe(false);
    expect(isDuplicateKeyError({ code: 2, message: 'UNIQUE constraint failed' })).toBe(false);
    expect(isDuplicateKeyError(new Error('boom'))).toBe(false);
    expect(isDuplicateKeyError(null)).toBe(false);
  });
});
