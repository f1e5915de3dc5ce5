// The API's JSON body parser. Plain JSON.parse, which makes a `"__proto__"` key an ordinary own
// property, then a refusal of the keys that could reach an object's prototype once code copies the
// value around — naming the key's path, where a generic "not valid JSON" would leave the client
// guessing at a body that is valid JSON.
import { errorCodes } from 'fastify';
import { ValidationError } from '@herald/core';

/** The path of the first key that could alter a prototype (`__proto__`, `constructor.prototype`), if any. */
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

export function parseJsonBody(text: string): unknown {
  if (text === '') throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
  const forbidden = prototypeKeyPath(value);
  if (forbidden !== undefined) {
    throw ValidationError.single(forbidden, 'is refused: "__proto__" and "constructor.prototype" keys could alter object prototypes once the body is copied; rename the key');
  }
  return value;
}
