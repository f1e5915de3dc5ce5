// The API's JSON body parser (src/routing/json-body.ts), pure.
import { isUtf8 } from 'node:buffer';
import { ValidationError } from '@herald/core';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8Byte, parseJsonBody, prototypeKeyPath } from '../src/routing/json-body.js';

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

describe('parseJsonBody: raw bytes', () => {
  it('refuses bytes that are not UTF-8 with their offset, and decodes those that are', () => {
    expect(parseJsonBody(Buffer.from('{"a":"é€😀"}'))).toEqual({ a: 'é€😀' });
    for (const [bytes, offset] of [
      [Buffer.concat([Buffer.from('{"aggregateId":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), 16],
      [Buffer.concat([Buffer.from('{"data":{"'), Buffer.from([0xc0, 0xaf]), Buffer.from('":1}}')]), 10],
    ] as const) {
      const error = (() => {
        try {
          parseJsonBody(bytes);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors).toEqual([{ field: 'body', message: expect.stringContaining(`at offset ${offset}`) }]);
    }
  });

  it('refuses depth, duplicate keys and unsafe integers before walking the value', () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expect(() => parseJsonBody(Buffer.from(deep))).toThrow(ValidationError);
    expect(() => parseJsonBody('{"a":1,"a":2}')).toThrow(ValidationError);
    expect(() => parseJsonBody('{"a":9007199254740993}')).toThrow(ValidationError);
  });
});

describe('firstInvalidUtf8Byte', () => {
  it.each([
    [[0x41, 0x42], -1],
    [[0xc3, 0xa9], -1],
    [[0xf0, 0x9f, 0x98, 0x80], -1],
    [[0x41, 0xff], 1],
    [[0xc0, 0xaf], 0],
    [[0xe0, 0x80, 0xaf], 0],
    [[0xed, 0xa0, 0x80], 0],
    [[0xf4, 0x90, 0x80, 0x80], 0],
    [[0x41, 0xe2, 0x82], 1],
    [[0x80], 0],
  ])('%j → %d', (bytes, offset) => {
    const buffer = Buffer.from(bytes);
    expect(firstInvalidUtf8Byte(buffer)).toBe(offset);
    expect(firstInvalidUtf8Byte(buffer) === -1).toBe(isUtf8(buffer));
  });
});
