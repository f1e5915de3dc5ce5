// Every error answer is one that docs/server.md's error catalog lists: the pure mapping over every
// kind of error it can meet, and the host's edge paths over real HTTP.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { StoreUnavailableError } from '@herald/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MethodNotAllowedError, UnauthorizedError, UnsupportedMediaTypeError } from '../src/errors/api-errors.js';
import { toErrorReply } from '../src/errors/error-reply.js';
import { startTestHost, type TestHost } from './support/test-host.js';

/** `status code` pairs of the catalog table in docs/server.md. */
function documentedPairs(): Set<string> {
  const text = readFileSync(new URL('../../../docs/server.md', import.meta.url), 'utf8');
  const pairs = new Set<string>();
  for (const match of text.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)) pairs.add(`${match[1]} ${match[2]}`);
  return pairs;
}

const catalog = documentedPairs();

describe('the error mapping answers only with documented pairs', () => {
  it('reads a catalog', () => {
    expect(catalog.size).toBeGreaterThanOrEqual(10);
  });

  const inputs: Array<[string, unknown]> = [
    ...Array.from({ length: 52 }, (_, index) => [`a ${400 + index} from a plugin`, Object.assign(new Error('x'), { statusCode: 400 + index })] as [string, unknown]),
    ...['FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_BAD_URL', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH'].map(
      (code) => [code, Object.assign(new Error('x'), { code })] as [string, unknown],
    ),
    ['UnauthorizedError', new UnauthorizedError()],
    ['MethodNotAllowedError', new MethodNotAllowedError('TRACE', ['GET'])],
    ['UnsupportedMediaTypeError', new UnsupportedMediaTypeError('x')],
    ['StoreUnavailableError', new StoreUnavailableError('down')],
    ['a plain Error', new Error('boom')],
    ['a string', 'boom'],
  ];
  it.each(inputs)('%s', (_, error) => {
    const reply = toErrorReply(error, 'req-1');
    expect(catalog, `${reply.statusCode} ${reply.body.code}`).toContain(`${reply.statusCode} ${reply.body.code}`);
  });
});

describe('edge paths of the host', () => {
  let t: TestHost;
  let port: number;
  beforeAll(async () => {
    t = await startTestHost({ mode: 'api-only' });
    port = Number(new URL(t.host.url).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** One request written as is (no path normalisation, like curl --path-as-is). */
  function rawRequest(text: string): Promise<{ status: number; body: { code?: string } }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => {
        const split = answer.indexOf('\r\n\r\n');
        resolve({ status: Number(answer.slice(9, 12)), body: JSON.parse(answer.slice(split + 4) || '{}') as { code?: string } });
      });
      socket.on('error', reject);
    });
  }

  it('a console path that climbs out of the console → 403 FORBIDDEN', async () => {
    const answer = await rawRequest('GET /console/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('FORBIDDEN');
    expect(catalog).toContain('403 FORBIDDEN');
  });

  it('a delivery to a listener that does not exist → 410 GONE', async () => {
    const answer = await rawRequest('POST /internal/listen/no-such-listener HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(answer.status).toBe(410);
    expect(answer.body.code).toBe('GONE');
    expect(catalog).toContain('410 GONE');
  });
});
