// Requests that go wrong before any route runs — bad percent-encoding, over-long path parameters,
// no Host, undeclared methods — still get the ErrorResponse shape and an x-request-id. Raw sockets
// and node:http are used where fetch refuses to send such requests.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';
let t: TestHost;
let port: number;

interface ErrorBody {
  status: string;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request over node:http, which sends any method and any Host. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers: { authorization: `Bearer ${t.adminToken}`, ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : undefined }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Writes `text` on a fresh connection and returns everything the server answers before closing. */
function raw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      // One complete response is enough: the connection may be kept alive.
      const split = answer.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(answer)?.[1];
      if (split !== -1 && length !== undefined && answer.length >= split + 4 + Number(length)) socket.end();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parseRaw(answer: string): { status: number; headers: Map<string, string>; body: unknown } {
  const split = answer.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = answer.slice(0, split).split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(answer.slice(split + 4)) };
}

function expectErrorShape(body: unknown, code: string): ErrorBody {
  const error = body as ErrorBody;
  expect(Object.keys(error).every((key) => ['status', 'code', 'message', 'errors'].includes(key))).toBe(true);
  expect(error).toMatchObject({ status: 'error', code });
  expect(typeof error.message).toBe('string');
  return error;
}

beforeAll(async () => {
  t = await startTestHost();
  port = Number(new URL(t.host.url).port);
  expect((await t.api.post(SUBSCRIBERS, { id: 'known', displayName: 'Known', targetUrl: 'https://example.com/k' })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('errors Fastify raises before routing', () => {
  it('bad percent-encoding in the path → 400 ErrorResponse naming the path, with x-request-id', async () => {
    for (const path of ['/api/v1/orgs/%ZZ', `${SUBSCRIBERS}/%E0%A4%A`]) {
      const response = await send('GET', path);
      expect(response.status, path).toBe(400);
      expect(response.headers['x-request-id'], path).toMatch(/^[0-9a-f-]{36}$/);
      const body = expectErrorShape(response.body, 'MISSING_REQUIRED_PARAMETER');
      expect(body.errors).toEqual([{ field: 'path', message: 'must be valid percent-encoded UTF-8' }]);
    }
  });

  it('a path parameter over 1,000 characters → 400 ErrorResponse naming the parameter', async () => {
    const response = await send('GET', `${SUBSCRIBERS}/${'x'.repeat(1001)}`);
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const body = expectErrorShape(response.body, 'MISSING_REQUIRED_PARAMETER');
    expect(body.errors).toEqual([{ field: 'subscriberId', message: 'must be at most 1000 characters' }]);
  });

  it('an HTTP/1.1 request without Host → 400 ErrorResponse with a body and x-request-id', async () => {
    const answer = parseRaw(await raw(`GET ${SUBSCRIBERS} HTTP/1.1\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = expectErrorShape(answer.body, 'MISSING_REQUIRED_PARAMETER');
    expect(body.errors).toEqual([{ field: 'host', message: 'header is required in HTTP/1.1' }]);
  });

  it('two Host fields → 400 naming host, nothing read', async () => {
    const answer = parseRaw(await raw(`GET ${SUBSCRIBERS} HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`));
    expect(answer.status).toBe(400);
    const body = expectErrorShape(answer.body, 'MISSING_REQUIRED_PARAMETER');
    expect(body.errors).toEqual([{ field: 'host', message: 'must be sent once' }]);
  });

  it('HTTP/1.0 needs no Host', async () => {
    const answer = parseRaw(await raw(`GET ${SUBSCRIBERS}/known HTTP/1.0\r\nAuthorization: Bearer ${t.adminToken}\r\n\r\n`));
    expect(answer.status).toBe(200);
  });

  it('a request the HTTP parser rejects carries an x-request-id that the log names', async () => {
    const answer = await raw(`POST ${SUBSCRIBERS} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`);
    const requestId = /x-request-id: ([0-9a-f-]{36})/i.exec(answer)?.[1];
    expect(requestId).toBeDefined();
    expect(t.logs.some((line) => line.includes(requestId!))).toBe(true);
  });
});

describe('undeclared methods on known paths', () => {
  it.each([
    ['TRACE', SUBSCRIBERS, 'GET, HEAD, POST'],
    ['QUERY', SUBSCRIBERS, 'GET, HEAD, POST'],
    ['PATCH', `${SUBSCRIBERS}/known`, 'DELETE, GET, HEAD, PUT'],
    ['POST', `${SUBSCRIBERS}/known`, 'DELETE, GET, HEAD, PUT'],
    ['DELETE', '/api/v1/orgs', 'GET, HEAD'],
    ['PUT', '/healthz', 'GET, HEAD'],
  ])('%s %s → 405 with Allow: %s', async (method, path, allow) => {
    const response = await send(method, path);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expectErrorShape(response.body, 'METHOD_NOT_ALLOWED');
  });

  it('an unknown path is still 404, whatever the method', async () => {
    for (const method of ['GET', 'TRACE', 'PATCH']) {
      const response = await send(method, '/api/v0.9/nothing-here');
      expect(response.status, method).toBe(404);
      expectErrorShape(response.body, 'ORG_NOT_FOUND');
    }
  });
});

describe('Location without HERALD_PUBLIC_URL', () => {
  let created = 0;
  async function locationFor(host: string): Promise<string | undefined> {
    created += 1;
    const response = await send(
      'POST',
      SUBSCRIBERS,
      { host, 'content-type': 'application/json' },
      JSON.stringify({ id: `located-${created}`, displayName: 'Located', targetUrl: 'https://example.com/l' }),
    );
    expect(response.status, host).toBe(201);
    return response.headers.location as string | undefined;
  }

  it.each(['herald.internal:8443', '127.0.0.1', '[::1]:8080', 'evil.example', 'evil.example.com:443/phish?', 'user@evil.example.com', 'a b'])(
    'Host %j is never used: the Location is the path only (a relative reference)',
    async (host) => {
      expect(await locationFor(host)).toBe(`${SUBSCRIBERS}/located-${created}`);
    },
  );
});

describe('Location with HERALD_PUBLIC_URL', () => {
  it('is absolute from the configured URL, whatever the Host', async () => {
    const configured = await startTestHost({ mode: 'api-only', overrides: { publicBaseUrl: 'https://herald.example/' } });
    try {
      const url = new URL(SUBSCRIBERS, configured.host.url);
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${configured.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'public-url', displayName: 'Public', targetUrl: 'https://example.com/p' }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe(`https://herald.example${SUBSCRIBERS}/public-url`);
    } finally {
      await configured.close();
    }
  });
});

describe('order of refusals', () => {
  it('an undeclared method is refused before its body is read', async () => {
    const response = await send('POST', '/api/v1/orgs', { 'content-type': 'application/json' }, '{not json');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});
