// The checks of a body's JSON text (src/routing/json-text.ts), pure, and what they cost.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { jsonTextIssue, MAX_BODY_DEPTH } from '../src/routing/json-text.js';

function nested(depth: number, inner = '1'): string {
  return '['.repeat(depth) + inner + ']'.repeat(depth);
}

describe('jsonTextIssue: nesting', () => {
  it('accepts MAX_BODY_DEPTH levels and refuses one more, naming the body', () => {
    expect(jsonTextIssue(nested(MAX_BODY_DEPTH))).toBeUndefined();
    expect(jsonTextIssue(nested(MAX_BODY_DEPTH + 1))).toEqual({ field: 'body', message: `is nested more than ${MAX_BODY_DEPTH} levels deep` });
  });

  it('refuses 100,000 levels of objects without recursion', () => {
    const text = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    expect(jsonTextIssue(text)?.field).toBe('body');
  });

  it('counts depth, not the number of containers', () => {
    const wide = `[${Array.from({ length: 10_000 }, () => '{"a":[1]}').join(',')}]`;
    expect(jsonTextIssue(wide)).toBeUndefined();
  });

  it('ignores brackets and braces inside strings, escaped quotes included', () => {
    expect(jsonTextIssue(`{"a":"${'['.repeat(1000)}","b":"\\"{{{{\\\\","c":"\\\\"}`, 2)).toBeUndefined();
  });
});

describe('jsonTextIssue: duplicate keys', () => {
  it.each([
    ['{"sensitive":["pw"],"sensitive":[]}', 'sensitive'],
    ['{"eventType":"a.b","data":{},"eventType":"c.d"}', 'eventType'],
    ['{"data":{"x":{"y":1,"y":2}}}', 'data.x.y'],
    ['{"data":{"list":[{"k":1},{"k":1,"k":2}]}}', 'data.list[1].k'],
    ['[{"a":1},{"b":1,"b":1}]', 'body[1].b'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"\\"q":1,"\\u0022q":2}', '"q'],
    ['{"a\\\\":1,"a\\u005c":2}', 'a\\'],
  ])('%s → %s', (text, field) => {
    expect(jsonTextIssue(text)).toEqual({ field, message: expect.stringMatching(/more than once in the same object/) });
  });

  it('finds a repeat among many keys, and forgets an object\'s keys once it closes', () => {
    const many = Array.from({ length: 40 }, (_, index) => `"k${index}":${index}`);
    expect(jsonTextIssue(`{${many.join(',')}}`)).toBeUndefined();
    expect(jsonTextIssue(`{${many.join(',')},"k3":0}`)?.field).toBe('k3');
    expect(jsonTextIssue(`{${many.join(',')},"k39":0}`)?.field).toBe('k39');
    expect(jsonTextIssue(`[{${many.join(',')}},{"k3":1,"k39":2}]`)).toBeUndefined();
    expect(jsonTextIssue(`[{${many.join(',')}},{"k3":1,"k3":2}]`)?.field).toBe('body[1].k3');
  });

  it.each([
    '{"a":{"a":{"a":1}}}',
    '{"a":{"b":1},"b":{"a":1}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":"a"}',
    '{"a":1,"A":2,"a ":3}',
    '{"x":{"k":1},"y":{"k":1}}',
    '{"\\\\u0061":1,"a":2}',
  ])('%s has none', (text) => {
    expect(jsonTextIssue(text)).toBeUndefined();
  });
});

describe('jsonTextIssue: integers a double cannot hold', () => {
  it.each([
    ['{"data":{"n":9007199254740993}}', 'data.n', '<= 9007199254740991'],
    ['{"data":{"n":9007199254740992}}', 'data.n', '<= 9007199254740991'],
    ['{"data":{"n":-9007199254740992}}', 'data.n', '>= -9007199254740991'],
    ['{"data":{"list":[1,2,123456789012345678901234567890]}}', 'data.list[2]', '<= 9007199254740991'],
    ['{"filter":{"data.n":{"$gt":99999999999999999}}}', 'filter.data.n.$gt', '<= 9007199254740991'],
    ['12345678901234567890', 'body', '<= 9007199254740991'],
  ])('%s → %s', (text, field, bound) => {
    expect(jsonTextIssue(text)).toEqual({ field, message: expect.stringContaining(`must be ${bound}`) });
  });

  it.each([
    '{"n":9007199254740991}',
    '{"n":-9007199254740991}',
    '{"n":1000000000000000}',
    '{"n":9007199254740993.5}',
    '{"n":1e300}',
    '{"n":12345678901234567890e-3}',
    '{"n":"9007199254740993"}',
    '{"n":0.00000000000000000001}',
    '{"9007199254740993":1}',
  ])('%s is accepted', (text) => {
    expect(jsonTextIssue(text)).toBeUndefined();
  });
});

describe('jsonTextIssue: cost', () => {
  it('checks a 256 KiB body in a few milliseconds', () => {
    const item = (index: number) => `{"id":"item-${index}","amount":${index * 1234567},"ratio":${index / 7},"tags":["a\\"b","c"],"ok":true,"none":null}`;
    const parts: string[] = [];
    let size = 0;
    for (let index = 0; size < 256 * 1024; index += 1) {
      const text = item(index);
      parts.push(text);
      size += text.length + 1;
    }
    const body = `{"eventType":"bench.run","aggregateId":"b1","data":{"items":[${parts.join(',')}]}}`;
    expect(jsonTextIssue(body)).toBeUndefined();
    for (let warm = 0; warm < 20; warm += 1) jsonTextIssue(body);
    const runs = 50;
    const started = performance.now();
    for (let run = 0; run < runs; run += 1) jsonTextIssue(body);
    const perRun = (performance.now() - started) / runs;
    console.info(`jsonTextIssue on ${(body.length / 1024).toFixed(0)} KiB: ${perRun.toFixed(2)} ms per body`);
    expect(perRun).toBeLessThan(20);
  });
});
