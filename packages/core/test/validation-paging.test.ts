// Unit tests of core's integer rules for paging: bounds, and no integer a double cannot hold.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/shared/errors.js';
import { integerCheck } from '../src/validation/fields.js';
import { validatePageQuery } from '../src/validation/page.js';

describe('integerCheck', () => {
  it('bounds integers, and never accepts one a double cannot hold exactly', () => {
    const check = integerCheck(0);
    expect(check(0)).toBeUndefined();
    expect(check(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(check(Number.MAX_SAFE_INTEGER + 1)).toBe('must be at most 9007199254740991');
    expect(check(1e300)).toBe('must be at most 9007199254740991');
    expect(check(-1)).toBe('must be at least 0');
    expect(check(1.5)).toBe('must be an integer');
    expect(check(Number.POSITIVE_INFINITY)).toBe('must be an integer');
    expect(integerCheck(1, 100)(101)).toBe('must be at most 100');
    expect(integerCheck(-Infinity)(-(2 ** 60))).toBe('must be at least -9007199254740991');
  });
});

describe('validatePageQuery', () => {
  it('offset is at most 2^53 − 1', () => {
    expect(validatePageQuery({ offset: Number.MAX_SAFE_INTEGER })).toEqual({ limit: 20, offset: Number.MAX_SAFE_INTEGER });
    expect(() => validatePageQuery({ offset: Number.MAX_SAFE_INTEGER + 2 })).toThrow(ValidationError);
    try {
      validatePageQuery({ offset: 2 ** 53 });
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([{ field: 'offset', message: 'must be at most 9007199254740991' }]);
    }
  });
});
