// The API's JSON body parser (src/routing/json-body.ts), pure.
import { ValidationError } from '@herald/core';
import { describe, expect, it } from 'vitest';
import { parseJsonBody, prototypeKeyPath } from '../src/routing/json-body.js';

describe('prototypeKeyPath', () => {
  it.each([
    ['{"a":1}', undefined],
    ['{"__proto__":{}}', 'body.__proto__'],
    ['{"a":{"b":[1,{"__proto__":null}]}}', 'body.a.b[1].__proto__'],
    ['{"constructor":{"prototype":1}}', 'body.constructor.prototype'],
    ['{"constructor":"x","prototype":{"y":1}}', undefined],
    ['[{"x":{"__proto__":1}}]', 'body[0].x.__proto__'],
  ])('%s → %s', (text, path) => {
    expect(prototypeKeyPath(JSON.parse(text))).toBe(path);
  });
});

describe('parseJsonBody', () => {
  it('parses JSON, refuses prototype keys with their path, and reports empty or broken bodies as Fastify does', () => {
    expect(parseJsonBody('{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseJsonBody('{"__proto__":{"admin":true}}')).toThrow(ValidationError);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(() => parseJsonBody('')).toThrow(expect.objectContaining({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY' }));
    expect(() => parseJsonBody('{')).toThrow(expect.objectContaining({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' }));
  });
});
