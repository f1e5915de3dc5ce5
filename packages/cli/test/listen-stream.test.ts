// The listen stream read from a real HTTP server on loopback that writes its server-sent events in
// pieces, cut where a reader can go wrong: inside a CRLF, between a `\r` and the blank line's `\n`,
// inside a field name, a value or a UTF-8 character.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openListenStream, type StreamFrame } from '../src/webhooks/listen-stream.js';

/** Long enough that each piece reaches the client as a read of its own. */
const PAUSE_MS = 40;

let server: Server;
let baseUrl: string;
let pieces: readonly (string | Buffer)[] = [];
let lastRequest: { url: string; authorization: string | undefined; accept: string | undefined } | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    lastRequest = { url: request.url ?? '', authorization: request.headers.authorization, accept: request.headers.accept };
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    response.flushHeaders();
    void (async () => {
      for (const piece of pieces) {
        await sleep(PAUSE_MS);
        response.write(piece);
      }
      response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function framesOf(written: readonly (string | Buffer)[]): Promise<StreamFrame[]> {
  pieces = written;
  const frames: StreamFrame[] = [];
  for await (const frame of openListenStream(baseUrl, 'tok', ['apikey.*'], AbortSignal.timeout(10_000))) frames.push(frame);
  return frames;
}

const ready = { event: 'ready', data: '{"listenerId":"lst_1","secret":"whsec_x"}' };
const delivery = { event: 'delivery', data: '{"deliveryId":"dlv_1","body":"{}"}' };
const utf8 = Buffer.from('data: café\n\n');
const insideE = utf8.indexOf(0xc3) + 1;

const cases: readonly { name: string; pieces: readonly (string | Buffer)[]; frames: readonly StreamFrame[] }[] = [
  {
    name: 'a CRLF cut between its \\r and its \\n',
    pieces: [`event: ready\r\ndata: ${ready.data}\r`, `\n\r\nevent: delivery\r\ndata: ${delivery.data}\r\n\r\n`],
    frames: [ready, delivery],
  },
  {
    name: "the blank line's CRLF cut between its \\r and its \\n",
    pieces: [`event: ready\r\ndata: ${ready.data}\r\n\r`, `\nevent: delivery\r\ndata: ${delivery.data}\r\n\r\n`],
    frames: [ready, delivery],
  },
  {
    name: 'every CRLF of a frame cut in two',
    pieces: ['event: ready\r', `\ndata: ${ready.data}\r`, '\n\r', '\n'],
    frames: [ready],
  },
  {
    name: 'a field name cut in two',
    pieces: ['ev', `ent: ready\nda`, `ta: ${ready.data}\n\n`],
    frames: [ready],
  },
  {
    name: 'a value cut in two, mid-line',
    pieces: [`event: deli`, `very\ndata: ${delivery.data.slice(0, 9)}`, `${delivery.data.slice(9)}\n`, '\n'],
    frames: [delivery],
  },
  {
    name: 'lines ended by a lone \\r',
    pieces: [`event: ready\rdata: ${ready.data}\r`, '\r'],
    frames: [ready],
  },
  {
    name: 'a heartbeat comment cut in two between frames',
    pieces: [`event: ready\ndata: ${ready.data}\n\n: heart`, 'beat\n\n', `event: delivery\ndata: ${delivery.data}\n\n`],
    frames: [ready, delivery],
  },
  {
    name: 'data on several lines and an event without a type',
    pieces: ['data: one\r\ndata:', ' two\r\n\r\n'],
    frames: [{ event: 'message', data: 'one\ntwo' }],
  },
  {
    name: 'a UTF-8 character cut between its bytes',
    pieces: [utf8.subarray(0, insideE), utf8.subarray(insideE)],
    frames: [{ event: 'message', data: 'café' }],
  },
];

describe('openListenStream', () => {
  it.each(cases)('reads $name', async ({ pieces: written, frames }) => {
    expect(await framesOf(written)).toStrictEqual(frames);
  });

  it('asks for the stream with the token and the event patterns', async () => {
    await framesOf([]);
    expect(lastRequest).toStrictEqual({ url: '/api/v0.9/webhook-listen?events=apikey.*', authorization: 'Bearer tok', accept: 'text/event-stream' });
  });
});
