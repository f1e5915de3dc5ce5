import { describe, expect, it } from 'vitest';
import { RequestUrl } from '../src/http/endpoint.js';
import { chooseMethod, parseHeaderArg, planRequest, redactHeader, redactSecretFields, renderCurl, shellQuote, type PlanInput } from '../src/api/request.js';

const input: PlanInput = {
  url: new RequestUrl('https://h.example', '/api/v1/orgs'),
  explicitMethod: undefined,
  fields: [],
  headerArgs: [],
  input: undefined,
  token: 'tok_secret',
  userAgent: 'herald-cli/test',
};

describe('chooseMethod', () => {
  it('defaults to GET, to POST with fields or a body, and honours -X in any case', () => {
    expect(chooseMethod(undefined, false, false)).toBe('GET');
    expect(chooseMethod(undefined, true, false)).toBe('POST');
    expect(chooseMethod(undefined, false, true)).toBe('POST');
    expect(chooseMethod('get', true, false)).toBe('GET');
    expect(() => chooseMethod('GE T', false, false)).toThrow('invalid method');
  });
});

describe('planRequest', () => {
  it('puts fields in the query for GET and sends no body', () => {
    const plan = planRequest({ ...input, explicitMethod: 'GET', fields: [{ key: 'limit', value: 5 }] });
    expect(plan.url.search).toBe('?limit=5');
    expect(plan.body).toBeUndefined();
    expect(plan.headers).toContainEqual(['Authorization', 'Bearer tok_secret']);
  });

  it('sends fields as JSON for other methods with a JSON content type', () => {
    const plan = planRequest({ ...input, fields: [{ key: 'enabled', value: false }] });
    expect(plan.method).toBe('POST');
    expect(Buffer.from(plan.body!.bytes).toString()).toBe('{"enabled":false}');
    expect(plan.headers).toContainEqual(['Content-Type', 'application/json']);
  });

  it('lets user headers replace Accept, Content-Type and Authorization (case-insensitive)', () => {
    const plan = planRequest({ ...input, fields: [{ key: 'a', value: 1 }], headerArgs: ['accept: text/csv', 'CONTENT-TYPE: text/plain', 'authorization: Basic x'] });
    const names = plan.headers.map(([name]) => name.toLowerCase());
    expect(names.filter((name) => name === 'authorization')).toHaveLength(1);
    expect(names.filter((name) => name === 'accept')).toHaveLength(1);
    expect(plan.headers).toContainEqual(['authorization', 'Basic x']);
    expect(JSON.stringify(plan.headers)).not.toContain('tok_secret');
  });
});

describe('headers and redaction', () => {
  it('parses Name: value and rejects malformed headers', () => {
    expect(parseHeaderArg('X-A:  b: c ')).toStrictEqual(['X-A', 'b: c']);
    expect(() => parseHeaderArg('nocolon')).toThrow('invalid header "nocolon"');
    expect(() => parseHeaderArg('bad name: x')).toThrow('invalid header');
  });

  it('rejects control characters and what cannot be sent in a header, and allows a tab in the value', () => {
    expect(() => parseHeaderArg('X-A: a\u0000b')).toThrow('invalid header "X-A: a\\u0000b": control characters are not allowed in a header');
    expect(() => parseHeaderArg('X-A: a\nX-B: b')).toThrow('invalid header "X-A: a\\nX-B: b": control characters');
    expect(() => parseHeaderArg('X-A\r: b')).toThrow('control characters');
    expect(() => parseHeaderArg('X-A: \u2603')).toThrow('"\u2603" cannot be sent in a header value');
    expect(() => parseHeaderArg('X[A]: b')).toThrow('"[" is not allowed in a header name');
    expect(parseHeaderArg('X-A: a\tb')).toStrictEqual(['X-A', 'a\tb']);
    expect(parseHeaderArg("X-A!#$%&'*+.^_`|~: caf\u00e9")).toStrictEqual(["X-A!#$%&'*+.^_`|~", 'caf\u00e9']);
  });

  it('keeps only the scheme of Authorization and masks known secrets elsewhere', () => {
    expect(redactHeader(['authorization', 'Bearer abc'], [])).toStrictEqual(['authorization', 'Bearer ***']);
    expect(redactHeader(['Authorization', 'abc'], [])).toStrictEqual(['Authorization', '***']);
    expect(redactHeader(['X-Echo', 'has tok_secret inside'], ['tok_secret'])).toStrictEqual(['X-Echo', 'has *** inside']);
  });
});

describe('credentials in messages and dry runs', () => {
  it('an invalid credential header is described with its value masked', () => {
    expect(() => parseHeaderArg('Authorization: Bearer tok_abc\u0001')).toThrow('invalid header "Authorization: Bearer ***": control characters');
    expect(() => parseHeaderArg('x-api-key: tok_abc\u0001')).toThrow('invalid header "x-api-key: ***"');
    expect(redactHeader(['Cookie', 'a=tok_abc'], [])).toStrictEqual(['Cookie', '***']);
  });

  it('masks secret-named fields at any depth, keeps the rest, and keeps "__proto__" as data', () => {
    const body = JSON.parse('{"name":"n","secret":"s1","nested":[{"apiKey":"k","ok":1}],"__proto__":{"password":"p"}}') as unknown;
    const redacted = redactSecretFields(body);
    expect(JSON.stringify(redacted)).toBe('{"name":"n","secret":"***","nested":[{"apiKey":"***","ok":1}],"__proto__":{"password":"***"}}');
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
  });
});

describe('renderCurl', () => {
  it('renders method, URL, headers and an inline JSON body, token redacted', () => {
    const plan = planRequest({ ...input, fields: [{ key: 'name', value: "it's" }] });
    const curl = renderCurl(plan, ['tok_secret']);
    expect(curl).toBe(
      "curl -X POST https://h.example/api/v1/orgs -H 'Accept: application/json' -H 'Content-Type: application/json' -H 'User-Agent: herald-cli/test' -H 'Authorization: Bearer ***' --data-binary '{\"name\":\"it'\\''s\"}'",
    );
    expect(curl).not.toContain('tok_secret');
  });

  it('refers to an --input file instead of inlining it', () => {
    const plan = planRequest({ ...input, input: { bytes: new Uint8Array([0, 1]), path: 'body.bin' } });
    expect(renderCurl(plan, [])).toContain('--data-binary @body.bin');
  });

  it('quotes only when needed', () => {
    expect(shellQuote('https://h/x?a=1')).toBe("'https://h/x?a=1'");
    expect(shellQuote('plain-word')).toBe('plain-word');
  });
});
