// The API's JSON body parser. The raw bytes must be UTF-8 (decoding would otherwise turn invalid
// bytes into U+FFFD, stored and delivered as if sent); then plain JSON.parse, which makes a
// `"__proto__"` key an ordinary own property; then the checks of the text (json-text.ts: depth,
// duplicate keys, integers a double cannot hold) and a refusal of the keys that could reach an
// object's prototype once code copies the value around — each naming where, since a generic "not
// valid JSON" would leave the client guessing at a body that is valid JSON.
import { isUtf8 } from 'node:buffer';
import { errorCodes } from 'fastify';
import { ValidationError } from '@herald/core';
import { jsonTextIssue } from './json-text.js';

/** The first UTF-8 continuation byte range of each lead byte that starts a multi-byte sequence. */
function sequenceOf(lead: number): { length: number; low: number; high: number } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 3, low: 0xa0, high: 0xbf }; // no overlong forms
  if (lead === 0xed) return { length: 3, low: 0x80, high: 0x9f }; // no surrogates
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 4, low: 0x90, high: 0xbf }; // no overlong forms
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, low: 0x80, high: 0xbf };
  if (lead === 0xf4) return { length: 4, low: 0x80, high: 0x8f }; // nothing above U+10FFFF
  return undefined; // 0x80–0xc1 (continuation or overlong lead) and 0xf5–0xff never start a sequence
}

/** Offset of the first byte that is not part of well-formed UTF-8 (RFC 3629), or -1. */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at]!;
    if (lead < 0x80) {
      at += 1;
      continue;
    }
    const sequence = sequenceOf(lead);
    if (sequence === undefined || at + sequence.length > bytes.length) return at;
    const second = bytes[at + 1]!;
    if (second < sequence.low || second > sequence.high) return at;
    for (let next = at + 2; next < at + sequence.length; next += 1) {
      if (bytes[next]! < 0x80 || bytes[next]! > 0xbf) return at;
    }
    at += sequence.length;
  }
  return -1;
}

/**
 * The path of the first key that could alter a prototype (`__proto__`, `constructor.prototype`), if
 * any. Recursive: only for values whose depth is already bounded (parseJsonBody checks it first).
 */
export function prototypeKeyPath(value: unknown, path = 'body'): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = prototypeKeyPath(value[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key === '__proto__') return `${path}.__proto__`;
    if (key === 'constructor' && inner !== null && typeof inner === 'object' && Object.hasOwn(inner, 'prototype')) return `${path}.constructor.prototype`;
    const found = prototypeKeyPath(inner, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `body`: the raw bytes as received (a string only where they are known to be text already). */
export function parseJsonBody(body: Buffer | string): unknown {
  if (body.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  if (typeof body !== 'string' && !isUtf8(body)) {
    throw ValidationError.single('body', `must be UTF-8: the bytes at offset ${firstInvalidUtf8Byte(body)} are not; invalid bytes are refused rather than replaced with U+FFFD`);
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
  // Before any walk of the value: the depth bound is what keeps those walks off a stack overflow.
  const issue = jsonTextIssue(text);
  if (issue !== undefined) throw new ValidationError([issue]);
  const forbidden = prototypeKeyPath(value);
  if (forbidden !== undefined) {
    throw ValidationError.single(forbidden, 'is refused: "__proto__" and "constructor.prototype" keys could alter object prototypes once the body is copied; rename the key');
  }
  return value;
}
