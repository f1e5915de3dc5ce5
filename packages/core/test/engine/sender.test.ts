import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpSender, type HttpSender, RESPONSE_SNIPPET_BYTES } from '../../src/engine/http/sender.js';
// A port the system just handed out and took back: nothing listens there, so connecting is refused.
import { freePort as closedPort } from '../../../../test/support/ferretdb.js';
import { answer, startSink, type Sink } from './support/sink.js';

const LOOPBACK = ['127.0.0.0/8', '::1'];
let sink: Sink;
let sender: HttpSender;

beforeAll(async () => {
  sink = await startSink();
  sender = createHttpSender({ ssrfAllowList: LOOPBACK });
});
afterAll(async () => {
  await sender.close();
  await sink.close();
});

function post(url: string, timeoutMs = 2_000) {
  return sender.send({ url, headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: '{"n":1}', timeoutMs });
}

describe('HTTP sender against real loopback sinks', () => {
  test('posts the body and headers, keeps 4 KiB of the response, reuses the connection', async () => {
    sink.setHandler(answer(200, { 'content-type': 'text/plain' }, 'x'.repeat(10_000)));
    const before = { requests: sink.received.length, connections: sink.connections };
    const first = await post(sink.url);
    const second = await post(sink.url);
    for (let i = 0; i < 4; i += 1) await post(sink.url);
    expect(first).toMatchObject({ kind: 'response', status: 200 });
    expect(first.kind === 'response' && first.responseSnippet.length).toBe(RESPONSE_SNIPPET_BYTES);
    expect(second).toMatchObject({ kind: 'response', status: 200 });
    const got = sink.received.slice(before.requests);
    expect(got).toHaveLength(6);
    expect(got.map((r) => [r.method, r.path, r.headers['x-test'], r.body.toString()])[0]).toEqual(['POST', '/hook', 'yes', '{"n":1}']);
    // Keep-alive: six sequential requests share one or two sockets (a second may open while
    // the first is being released), never one per request.
    expect(sink.connections - before.connections).toBeLessThanOrEqual(2);
  });

  test('a redirect is reported, not followed', async () => {
    sink.setHandler(answer(302, { location: '/elsewhere' }));
    const before = sink.received.length;
    expect(await post(sink.url)).toMatchObject({ kind: 'response', status: 302 });
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.received.slice(before).map((r) => r.path)).toEqual(['/hook']);
  });

  test('Retry-After is surfaced', async () => {
    sink.setHandler(answer(429, { 'retry-after': '7' }));
    expect(await post(sink.url)).toMatchObject({ kind: 'response', status: 429, retryAfter: '7' });
  });

  test('a receiver slower than timeoutMs is a TIMEOUT bounded by timeoutMs', async () => {
    sink.setHandler((_request, response) => { setTimeout(() => response.writeHead(200).end(), 2_000); });
    const result = await post(sink.url, 300);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'TIMEOUT' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1_500);
  });

  test('a body that trickles past timeoutMs is a TIMEOUT too (whole exchange)', async () => {
    sink.setHandler((_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('.'), 100);
      setTimeout(() => { clearInterval(timer); response.end(); }, 2_000);
    });
    const result = await post(sink.url, 400);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'TIMEOUT' });
    expect(result.durationMs).toBeLessThan(1_500);
  });

  test('a body past the drain bound is cut off: the status and the first 4 KiB are kept, and the next request opens a fresh connection', async () => {
    sink.setHandler(answer(200, { 'content-type': 'text/plain' }, 'é'.repeat(512 * 1024)));
    const result = await post(sink.url);
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    // 4 KiB cut at a byte boundary: 2,048 two-byte characters.
    expect(result.kind === 'response' && result.responseSnippet).toBe('é'.repeat(2_048));
    sink.setHandler(answer(204));
    expect(await post(sink.url)).toMatchObject({ kind: 'response', status: 204 });
  });

  test('a receiver that drops the connection in the middle of its body is an error, not a response', async () => {
    sink.setHandler((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 50);
    });
    const result = await post(sink.url);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'CONNECTION_RESET' });
  });

  test('connection refused', async () => {
    const port = await closedPort();
    expect(await post(`http://127.0.0.1:${port}/`)).toMatchObject({ kind: 'error', errorClass: 'CONNECTION_REFUSED' });
  });

  test('non-http schemes are refused before any connect', async () => {
    expect(await post('file:///etc/passwd')).toMatchObject({ kind: 'error', errorClass: 'INVALID_URL' });
  });
});

describe('SSRF guard at connect time', () => {
  test('loopback is refused without an allow-list entry, by IP literal and by name', async () => {
    const guarded = createHttpSender();
    try {
      sink.setHandler(answer(204));
      const before = sink.received.length;
      const byIp = await guarded.send({ url: sink.url, headers: {}, body: '{}', timeoutMs: 2_000 });
      const byName = await guarded.send({ url: `http://localhost:${sink.port}/hook`, headers: {}, body: '{}', timeoutMs: 2_000 });
      const mapped = await guarded.send({ url: `http://[::ffff:127.0.0.1]:${sink.port}/hook`, headers: {}, body: '{}', timeoutMs: 2_000 });
      for (const result of [byIp, byName, mapped]) {
        expect(result).toMatchObject({ kind: 'error', errorClass: 'SSRF_BLOCKED' });
        expect(result.kind === 'error' && result.message).toMatch(/loopback/);
      }
      expect(sink.received.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  test('the metadata address is refused even with loopback allow-listed', async () => {
    expect(await post('http://169.254.169.254/latest/meta-data/')).toMatchObject({ kind: 'error', errorClass: 'SSRF_BLOCKED' });
  });

  test('allow-listed loopback goes through, by name too', async () => {
    sink.setHandler(answer(204));
    expect(await post(`http://localhost:${sink.port}/hook`)).toMatchObject({ kind: 'response', status: 204 });
  });
});
