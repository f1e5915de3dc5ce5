// Small field checkers shared by the input validators. Pure; each returns a message or undefined.
import type { FieldIssue } from '../shared/errors.js';
import { ILL_FORMED_TEXT_MESSAGE, isWellFormedText } from './text.js';

export type Check = (value: unknown) => string | undefined;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringCheck(options: { min?: number; max?: number; pattern?: RegExp; patternHint?: string } = {}): Check {
  return (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (!isWellFormedText(value)) return ILL_FORMED_TEXT_MESSAGE;
    // Lengths count Unicode code points, as JSON Schema's minLength/maxLength do.
    const length = [...value].length;
    if (options.min !== undefined && length < options.min) {
      return options.min === 1 ? 'must not be empty' : `must be at least ${options.min} characters`;
    }
    if (options.max !== undefined && length > options.max) return `must be at most ${options.max} characters`;
    if (options.pattern && !options.pattern.test(value)) return options.patternHint ?? `must match ${options.pattern.source}`;
    return undefined;
  };
}

/** Integers within [min, max]; beyond ±(2^53 − 1) a JSON number no longer names one integer, so none is accepted. */
export function integerCheck(min: number, max: number = Number.MAX_SAFE_INTEGER): Check {
  const upper = Math.min(max, Number.MAX_SAFE_INTEGER);
  const lower = Math.max(min, -Number.MAX_SAFE_INTEGER);
  return (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
    if (value < lower) return `must be at least ${lower}`;
    if (value > upper) return `must be at most ${upper}`;
    return undefined;
  };
}

export const booleanCheck: Check = (value) => (typeof value === 'boolean' ? undefined : 'must be a boolean');

export function unknownFields(input: Record<string, unknown>, allowed: readonly string[], prefix = ''): FieldIssue[] {
  return Object.keys(input)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ field: prefix + key, message: 'is not a known property' }));
}

/** Runs `checks` on the present fields of `input`, reporting `required` ones that are missing. */
export function checkFields(
  input: Record<string, unknown>,
  checks: Record<string, Check>,
  required: readonly string[] = [],
): FieldIssue[] {
  const issues: FieldIssue[] = unknownFields(input, Object.keys(checks));
  for (const [field, check] of Object.entries(checks)) {
    const value = input[field];
    if (value === undefined) {
      if (required.includes(field)) issues.push({ field, message: 'is required' });
      continue;
    }
    const message = check(value);
    if (message !== undefined) issues.push({ field, message });
  }
  return issues;
}

/**
 * Whether a value holds arrays or objects nested more than `limit` deep (a container counts one
 * level). Iterative and stopping at the limit, so it is safe to run before the recursive walks it
 * protects, on values of any depth.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const item of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof item === 'object' && item !== null) pending.push({ value: item, depth: depth + 1 });
    }
  }
  return false;
}
