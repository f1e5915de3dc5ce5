// HeraldClient against a recording loopback server: request shape, and how failures are classified.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeraldClient } from '../../src/herald/client.js';
import { HeraldApiError, HeraldUnreachableError } from '../../src/herald/errors.js';

interface Recorded { method: string; url: string; authorization: string | undefined; contentType: string | undefined; body: string }

const recorded: Recorded[] = [];
let reply: { status: number; body?: string } = { status: 200, body: '{}' };
let server: Server;
let baseUrl: string;

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    recorded.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization, contentType: request.headers['content-type'], body: await read(request) });
    response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('HeraldClient', () => {
  const client = () => new HeraldClient({ baseUrl, token: () => 'hrd_token' });

  it('sends JSON with the bearer token under /api/v0.9', async () => {
    reply = { status: 201, body: JSON.stringify({ id: 'ns.a' }) };
    await expect(client().createSubscriber({ id: 'ns.a', targetUrl: 'https://x/', secret: 'shh-0123456789abcdef' })).resolves.toEqual({ id: 'ns.a' });
    expect(recorded.at(-1)).toEqual({
      method: 'POST', url: '/api/v0.9/webhook-subscribers', authorization: 'Bearer hrd_token', contentType: 'application/json',
      body: JSON.stringify({ id: 'ns.a', targetUrl: 'https://x/', secret: 'shh-0123456789abcdef' }),
    });
    reply = { status: 204 };
    await client().deleteSubscriber('ns/odd id');
    expect(recorded.at(-1)).toMatchObject({ method: 'DELETE', url: '/api/v0.9/webhook-subscribers/ns%2Fodd%20id' });
  });

  it('asks who it is at /api/v1/me, outside the webhook API prefix', async () => {
    const me = { principal: 'tok_0123456789ab', kind: 'api-token', name: 'herald-operator', scopes: ['dp:webhook_subscriber:manage'], orgId: 'default' };
    reply = { status: 200, body: JSON.stringify(me) };
    await expect(client().me()).resolves.toEqual(me);
    expect(recorded.at(-1)).toMatchObject({ method: 'GET', url: '/api/v1/me', authorization: 'Bearer hrd_token', body: '' });
  });

  it('maps the spec error shape, the legacy shape and non-JSON bodies to HeraldApiError', async () => {
    reply = { status: 404, body: JSON.stringify({ status: 'error', code: 'ORG_NOT_FOUND', message: 'no such subscriber' }) };
    await expect(client().getSubscriber('x')).rejects.toMatchObject({ name: 'HeraldApiError', status: 404, code: 'ORG_NOT_FOUND', message: 'no such subscriber' });
    reply = { status: 400, body: JSON.stringify({ message: 'fields in the payload are missing or invalid' }) };
    await expect(client().updateSubscriber('x', {})).rejects.toMatchObject({ status: 400, code: 'HTTP_400', message: 'fields in the payload are missing or invalid' });
    reply = { status: 418, body: '<html>secret-looking page</html>' };
    const error = await client().getSubscriber('x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HeraldApiError);
    expect((error as Error).message).toBe('HTTP 418'); // the raw body is never echoed
  });

  it('treats gateway errors and refused connections as unreachable', async () => {
    reply = { status: 503, body: 'busy' };
    await expect(client().getSubscriber('x')).rejects.toBeInstanceOf(HeraldUnreachableError);
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = new HeraldClient({ baseUrl: `http://127.0.0.1:${port}`, token: () => 't' });
    await expect(closed.getSubscriber('x')).rejects.toThrow(/unreachable: .*ECONNREFUSED/);
  });
});
