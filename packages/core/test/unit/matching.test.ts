import { describe, expect, test } from 'vitest';
import {
  candidateKeysFor,
  isValidEventPattern,
  isValidEventType,
  keysMatch,
  matchKeysFor,
  patternMatches,
} from '../../src/rules/matching.js';

describe('event types and patterns', () => {
  test.each(['apikey.generated', 'a.b', 'sub_scription.renewed_2'])('%s is a valid event type', (type) => {
    expect(isValidEventType(type)).toBe(true);
  });
  test.each(['apikey', 'ApiKey.generated', 'a.b.c', 'a.', '.b', 'a.*', '*', 'a-b.c', ' a.b'])('%s is not an event type', (type) => {
    expect(isValidEventType(type)).toBe(false);
  });
  test.each(['apikey.generated', 'apikey.*', '*.generated', '*'])('%s is a valid pattern', (pattern) => {
    expect(isValidEventPattern(pattern)).toBe(true);
  });
  test.each(['*.*', 'api*.x', 'apikey', 'a.b.*', '**', 'A.*', ''])('%s is not a pattern', (pattern) => {
    expect(isValidEventPattern(pattern)).toBe(false);
  });
});

describe('match keys', () => {
  test('an empty filter or one containing * collapses to *', () => {
    expect(matchKeysFor([])).toEqual(['*']);
    expect(matchKeysFor(['a.b', '*'])).toEqual(['*']);
  });
  test('patterns are their own keys, unique and sorted', () => {
    expect(matchKeysFor(['b.*', 'a.b', 'b.*', '*.c'])).toEqual(['*.c', 'a.b', 'b.*']);
  });
  test('an event queries exact, family, action and catch-all keys', () => {
    expect(candidateKeysFor('apikey.generated')).toEqual(['apikey.generated', 'apikey.*', '*.generated', '*']);
  });
  test('every key a matching pattern produces is among the candidates, and no other', () => {
    const type = 'apikey.generated';
    const patterns = ['apikey.generated', 'apikey.*', '*.generated', '*', 'apikey.revoked', 'other.*', '*.revoked', 'other.generated'];
    for (const pattern of patterns) {
      const indexed = matchKeysFor([pattern]).some((key) => candidateKeysFor(type).includes(key));
      expect(indexed, pattern).toBe(patternMatches(pattern, type));
    }
  });
  test('keysMatch rechecks a loaded subscriber', () => {
    expect(keysMatch(['apikey.*'], 'apikey.generated')).toBe(true);
    expect(keysMatch(['*.revoked', 'x.y'], 'apikey.generated')).toBe(false);
  });
});

test('Herald\'s own family is matched only by patterns naming it', async () => {
  const { patternMatches, matchKeysFor, candidateKeysFor } = await import('../../src/rules/matching.js');
  expect(patternMatches('*', 'herald.delivery_exhausted')).toBe(false);
  expect(patternMatches('*.delivery_exhausted', 'herald.delivery_exhausted')).toBe(false);
  expect(patternMatches('herald.*', 'herald.delivery_exhausted')).toBe(true);
  expect(patternMatches('herald.delivery_exhausted', 'herald.delivery_exhausted')).toBe(true);
  expect(patternMatches('herald.*', 'order.created')).toBe(false);
  expect(candidateKeysFor('herald.recovery_completed')).toEqual(['herald.recovery_completed', 'herald.*']);
  expect(matchKeysFor(['*', 'herald.*', 'order.*'])).toEqual(['*', 'herald.*']);
});
