// A client that sends its request a little at a time cannot hold a connection open: past the
// headers or request timeout it is answered 408 and closed (issue 33: 20 connections sending one
// header line every 5 s stayed open past 60 s).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutCheckInterval } from '../src/app.js';
import { openSse } from './support/sse.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** Node checks every timeoutCheckInterval; a loaded test machine gets as much again. */
const SLACK_MS = 2 * timeoutCheckInterval(HEADERS_TIMEOUT_MS) + 1_000;
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost({ overrides: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS } });
});
afterAll(async () => {
  await t?.close();
});

/** Sends `first`, then each of `trickle` every `everyMs` while open; resolves with what came back and when it closed. */
function trickle(first: string, lines: () => string, everyMs: number): Promise<{ answer: string; closedAfterMs: number; sent: number }> {
  const { port } = new URL(t.host.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(first);
      timer = setInterval(() => {
        if (!socket.writable) return;
        socket.write(lines());
        sent += 1;
      }, everyMs);
    });
    // Long past both bounds: a connection still open then is the failure this file is about.
    const giveUp = setTimeout(() => socket.destroy(new Error('still open after 15 s')), 15_000);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET' && (error as NodeJS.ErrnoException).code !== 'EPIPE') {
        clearInterval(timer);
        clearTimeout(giveUp);
        reject(error);
      }
    });
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: Date.now() - started, sent });
    });
  });
}

describe('slow clients', () => {
  it('headers trickled a line at a time → 408 and closed once the headers timeout passes', async () => {
    let line = 0;
    const result = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n', () => `X-Slow-${(line += 1)}: a\r\n`, 200);
    expect(result.sent).toBeGreaterThan(1);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(result.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(result.answer.slice(result.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 'error', code: 'REQUEST_TIMEOUT' });
  });

  it('a body trickled a byte at a time → 408 and closed once the request timeout passes', async () => {
    const head = `POST /api/v0.9/webhook-events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
    const result = await trickle(head, () => ' ', 200);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(result.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('twenty such connections are all closed within the bound, and the host still answers', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => trickle(`GET /healthz HTTP/1.1\r\nHost: x\r\n`, () => `X-Conn-${index}: a\r\n`, 300)),
    );
    for (const result of results) expect(result.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect((await fetch(`${t.host.url}/healthz`)).status).toBe(200);
  });

  it('what arrived in time is not cut: an idle keep-alive connection, and a stream answered for longer than the bound', async () => {
    const stream = await openSse(`${t.host.url}/api/v0.9/webhook-listen?events=slow.test`, t.adminToken);
    expect(stream.status).toBe(200);
    const { listenerId } = JSON.parse((await stream.next()).data) as { listenerId: string };
    let ended = false;
    void stream.next().catch(() => (ended = true));

    const { port } = new URL(t.host.url);
    const socket = connect(Number(port), '127.0.0.1');
    let answers = '';
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString('utf8')));
    const request = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + SLACK_MS));
    socket.write(request);
    await expect.poll(() => answers.match(/HTTP\/1\.1 200 /g)?.length ?? 0).toBe(2);
    socket.destroy();

    expect(ended).toBe(false);
    stream.close();
    await fetch(`${t.host.url}/api/v0.9/webhook-listen/${listenerId}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.adminToken}` } });
  });
});
