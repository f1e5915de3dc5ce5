import { describe, expect, it } from 'vitest';
import { includeBlock, statusLine, verboseRequest, verboseResponse } from '../src/api/transcript.js';
import { planRequest } from '../src/api/request.js';
import { RequestUrl } from '../src/http/endpoint.js';

const response = { httpVersion: '1.1', statusCode: 404, statusMessage: 'Not Found', headers: [['Content-Type', 'application/json'], ['set-cookie', 'a=1']] as const };

describe('transcript', () => {
  it('renders the -i block: status line, headers in order, empty line', () => {
    expect(includeBlock(response)).toBe('HTTP/1.1 404 Not Found\nContent-Type: application/json\nset-cookie: a=1\n\n');
    expect(statusLine({ ...response, statusMessage: '' })).toBe('HTTP/1.1 404');
  });

  it('renders --verbose lines with the token redacted', () => {
    const plan = planRequest({
      url: new RequestUrl('http://h:1', '/api/v1/orgs', '?x=1'),
      explicitMethod: undefined,
      fields: [{ key: 'a', value: 1 }],
      headerArgs: ['X-Echo: tok_1'],
      input: undefined,
      token: 'tok_1',
      userAgent: 'ua',
    });
    const text = verboseRequest(plan, ['tok_1']);
    expect(text.split('\n')).toStrictEqual([
      '> POST /api/v1/orgs?x=1 HTTP/1.1',
      '> Host: h:1',
      '> Accept: application/json',
      '> Content-Type: application/json',
      '> User-Agent: ua',
      '> Authorization: Bearer ***',
      '> X-Echo: ***',
      '> Content-Length: 7',
      '>',
      '',
    ]);
    expect(verboseResponse(response, [])).toBe('< HTTP/1.1 404 Not Found\n< Content-Type: application/json\n< set-cookie: ***\n<\n');
  });
});
