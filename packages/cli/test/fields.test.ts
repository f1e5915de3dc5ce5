import { describe, expect, it } from 'vitest';
import { BigIntegerLiteral, buildJsonBody, buildQueryPairs, classifyTypedValue, parseKeyPath, splitKeyValue } from '../src/api/fields.js';
import { CliError } from '../src/errors.js';

describe('splitKeyValue', () => {
  it('splits at the first =', () => {
    expect(splitKeyValue('a=b=c', '-f')).toStrictEqual({ key: 'a', value: 'b=c' });
    expect(splitKeyValue('empty=', '-f')).toStrictEqual({ key: 'empty', value: '' });
  });
  it.each(['novalue', '=x', ''])('rejects %j', (text) => {
    expect(() => splitKeyValue(text, '-F/--field')).toThrow(`invalid -F/--field "${text}": expected key=value`);
  });
});

describe('classifyTypedValue (spec area A typed-value table)', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['null', null],
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    ['1.5', '1.5'],
    ['1e3', '1e3'],
    ['True', 'True'],
    ['hello', 'hello'],
    ['', ''],
  ])('%j is sent as %j', (text, value) => {
    expect(classifyTypedValue(text)).toStrictEqual({ kind: 'literal', value });
  });

  it('reads @path and @- as files', () => {
    expect(classifyTypedValue('@body.json')).toStrictEqual({ kind: 'file', path: 'body.json' });
    expect(classifyTypedValue('@-')).toStrictEqual({ kind: 'file', path: '-' });
  });

  it('keeps integers beyond 2^53 exact', () => {
    const source = classifyTypedValue('-000123456789012345678901');
    expect(source.kind === 'literal' && source.value).toBeInstanceOf(BigIntegerLiteral);
    expect(JSON.stringify({ n: source.kind === 'literal' ? source.value : undefined })).toBe('{"n":-123456789012345678901}');
  });
});

describe('nested fields', () => {
  it('parses key paths', () => {
    expect(parseKeyPath('a[b][]')).toStrictEqual([{ kind: 'key', name: 'a' }, { kind: 'key', name: 'b' }, { kind: 'append' }]);
    expect(() => parseKeyPath('a[b')).toThrow(CliError);
    expect(() => parseKeyPath('[a]')).toThrow(CliError);
  });

  it('builds objects, arrays and arrays of objects like gh', () => {
    const body = buildJsonBody([
      { key: 'name', value: 'n' },
      { key: 'meta[owner][team]', value: 'ops' },
      { key: 'events[]', value: 'apikey.*' },
      { key: 'events[]', value: 'subscription.*' },
      { key: 'items[][id]', value: 1 },
      { key: 'items[][label]', value: 'one' },
      { key: 'items[][id]', value: 2 },
      { key: 'empty[]', value: null },
    ]);
    expect(body).toStrictEqual({
      name: 'n',
      meta: { owner: { team: 'ops' } },
      events: ['apikey.*', 'subscription.*'],
      items: [{ id: 1, label: 'one' }, { id: 2 }],
      empty: [null],
    });
  });

  it('lets a later plain key overwrite an earlier one', () => {
    expect(buildJsonBody([{ key: 'a', value: 1 }, { key: 'a', value: 2 }])).toStrictEqual({ a: 2 });
  });

  it('rejects mixing a value and an object under one key', () => {
    expect(() => buildJsonBody([{ key: 'a', value: 1 }, { key: 'a[b]', value: 2 }])).toThrow('field "a[b]" conflicts');
    expect(() => buildJsonBody([{ key: 'a[]', value: 1 }, { key: 'a[b]', value: 2 }])).toThrow(CliError);
  });

  it('keeps keys as written in the query string and prints scalars as text', () => {
    expect(buildQueryPairs([{ key: 'a[]', value: 'x' }, { key: 'n', value: 5 }, { key: 'b', value: false }, { key: 'z', value: null }])).toStrictEqual([
      ['a[]', 'x'],
      ['n', '5'],
      ['b', 'false'],
      ['z', ''],
    ]);
  });
});
