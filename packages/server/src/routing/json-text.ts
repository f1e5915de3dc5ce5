// Checks of a request body's JSON text that JSON.parse has already accepted, for what the parsed
// value can no longer show or what the walks after parsing could not survive (pure):
// - nesting depth: JSON.parse nests as deep as the text does, while the checks that walk the value
//   afterwards (prototype keys, filters, schemas) recurse, so a body nested thousands of levels deep
//   would overflow the stack there instead of being refused;
// - duplicate keys in one object: JSON.parse keeps the last silently, while other parsers (a proxy,
//   an audit log, the receiver's) may keep the first, so one body would mean two things;
// - integer literals beyond 2^53 − 1 in magnitude: a JSON number is a double, so
//   9007199254740993 would be stored and delivered as …992.
// One iterative pass with an explicit stack: no input can exhaust the call stack here.
import type { FieldIssue } from '../validation/field-issues.js';

/** Deeper bodies are refused whole; `data` itself allows 32 levels (core's DATA_MAX_DEPTH), filters 8. */
export const MAX_BODY_DEPTH = 64;
/** 2^53 − 1 as digits, compared as text with literals of the same length. */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** Whether the quote at `at` is escaped: preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let index = at - 1; text.charCodeAt(index) === BACKSLASH; index -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The characters of a number's fraction and exponent: digits, '.', 'e', 'E', '+', '-'. */
function isNumberCharacter(code: number): boolean {
  return (code >= ZERO && code <= NINE) || code === DOT || code === LOWER_E || code === UPPER_E || code === PLUS || code === MINUS;
}

/** Index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
  return end === -1 ? text.length : end;
}

/** Up to this many keys an object's keys are compared one by one (no hashing); beyond, in a Set. */
const LINEAR_KEYS = 16;

/** Whether `key` was already read in the object open at `level`; records it otherwise. */
function isRepeated(key: string, level: number, siblings: string[][], counts: number[], large: Array<Set<string> | undefined>): boolean {
  const set = large[level];
  if (set !== undefined) {
    if (set.has(key)) return true;
    set.add(key);
    return false;
  }
  const list = siblings[level]!;
  const count = counts[level]!;
  for (let index = 0; index < count; index += 1) if (list[index] === key) return true;
  if (count === LINEAR_KEYS) {
    const built = new Set(list);
    built.add(key);
    large[level] = built;
  } else {
    list[count] = key;
    counts[level] = count + 1;
  }
  return false;
}

/**
 * The field at the innermost open container's current key or index. A top-level function rather
 * than a closure, so that the scan's loop variables are not captured (which slows the loop).
 */
function pathOf(depth: number, isArray: readonly boolean[], keys: readonly string[], indexes: readonly number[]): string {
  let path = '';
  for (let level = 0; level < depth; level += 1) {
    if (isArray[level]) path += `[${indexes[level]}]`;
    else path += path === '' ? keys[level]! : `.${keys[level]!}`;
  }
  return path === '' || path.startsWith('[') ? `body${path}` : path;
}

/**
 * The first problem of a JSON text that JSON.parse accepted, or undefined. Fields are named as the
 * rest of the API names them: `data.items[2].id`, `sensitive`; the whole body is `body`.
 */
export function jsonTextIssue(text: string, maxDepth = MAX_BODY_DEPTH): FieldIssue | undefined {
  // One entry per open container, innermost last: whether it is an array, the key being read (in
  // an object) or the index (in an array), and the keys an object has had so far.
  const isArray: boolean[] = [];
  const keys: string[] = [];
  const indexes: number[] = [];
  // The keys read so far in the object open at each depth, reused when another object opens there.
  const siblings: string[][] = [];
  const counts: number[] = [];
  const large: Array<Set<string> | undefined> = [];
  let depth = 0;
  let expectKey = false;

  const length = text.length;
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      if (expectKey) {
        const raw = text.slice(at + 1, end);
        // Escapes spell the same key differently ("a" and "\u0061"): compare what they decode to.
        const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
        const level = depth - 1;
        keys[level] = key;
        if (isRepeated(key, level, siblings, counts, large)) {
          return { field: pathOf(depth, isArray, keys, indexes), message: 'is given more than once in the same object; send each key once (parsers disagree on which one counts)' };
        }
        expectKey = false;
      }
      at = end + 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (depth >= maxDepth) return { field: 'body', message: `is nested more than ${maxDepth} levels deep` };
      const array = code === OPEN_BRACKET;
      isArray[depth] = array;
      indexes[depth] = 0;
      if (!array) {
        counts[depth] = 0;
        large[depth] = undefined;
        if (siblings[depth] === undefined) siblings[depth] = [];
      }
      depth += 1;
      expectKey = !array;
      at += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      expectKey = false;
      at += 1;
    } else if (code === COMMA) {
      if (isArray[depth - 1]) indexes[depth - 1] = indexes[depth - 1]! + 1;
      else expectKey = true;
      at += 1;
    } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
      const digitsStart = code === MINUS ? at + 1 : at;
      let end = digitsStart;
      while (end < length && text.charCodeAt(end) >= ZERO && text.charCodeAt(end) <= NINE) end += 1;
      const next = text.charCodeAt(end);
      if (next === DOT || next === LOWER_E || next === UPPER_E) {
        // A fraction or an exponent: a real number, whose rounding is the sender's to expect.
        while (end < length && isNumberCharacter(text.charCodeAt(end))) end += 1;
      } else {
        // JSON has no leading zeros, so more digits than 2^53 − 1 has means a larger magnitude.
        const digits = end - digitsStart;
        if (digits > MAX_SAFE_DIGITS.length || (digits === MAX_SAFE_DIGITS.length && text.slice(digitsStart, end) > MAX_SAFE_DIGITS)) {
          const bound = code === MINUS ? `>= -${MAX_SAFE_DIGITS}` : `<= ${MAX_SAFE_DIGITS}`;
          return { field: pathOf(depth, isArray, keys, indexes), message: `must be ${bound}: a JSON number cannot hold a larger integer exactly; send it as a string` };
        }
      }
      at = end;
    } else {
      // Whitespace, ':' and the letters of true, false and null.
      at += 1;
    }
  }
  return undefined;
}
