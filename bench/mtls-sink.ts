// The mTLS benchmark's receivers, in a process of their own: one plain node:http, one node:https that
// requires a client certificate signed by the given CA. Reads {serverCert, serverKey, clientCa} as
// JSON on stdin, prints {"plain": port, "mtls": port}. Every POST is answered 200 and its receipt
// kept by event id (webhook-id); GET /receipts on the plain port returns {plain, mtls}.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const { serverCert, serverKey, clientCa } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { serverCert: string; serverKey: string; clientCa: string };

const receipts = { plain: {} as Record<string, number>, mtls: {} as Record<string, number> };

function receiver(kind: 'plain' | 'mtls') {
  return (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      if (request.method === 'GET' && request.url === '/receipts') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipts));
        return;
      }
      const id = request.headers['webhook-id'];
      // Counted only when the connection presented a verified client certificate.
      const verified = kind === 'plain' || (request.socket as TLSSocket).authorized;
      if (typeof id === 'string' && verified) receipts[kind][id] ??= Date.now();
      response.writeHead(200).end();
    });
  };
}

const plain = createHttpServer({ keepAliveTimeout: 30_000 }, receiver('plain'));
const mtls = createHttpsServer({ cert: serverCert, key: serverKey, ca: clientCa, requestCert: true, rejectUnauthorized: true, keepAliveTimeout: 30_000 }, receiver('mtls'));
await Promise.all([plain, mtls].map((server) => new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))));
process.stdout.write(`${JSON.stringify({ plain: (plain.address() as AddressInfo).port, mtls: (mtls.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => process.exit(0));
