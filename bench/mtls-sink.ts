// The mTLS and OAuth2 benchmark's receivers, in a process of their own: one plain node:http, one
// node:https that requires a client certificate signed by the given CA, and one node:http that wants a
// Bearer token issued by its own POST /token (client credentials, tokens living an hour). Reads
// {serverCert, serverKey, clientCa} as JSON on stdin, prints {"plain": port, "mtls": port, "oauth2": port}.
// Every delivery is answered 200 and its receipt kept by event id (webhook-id); GET /receipts on the
// plain port returns {plain, mtls, oauth2}.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { randomBytes } from 'node:crypto';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const { serverCert, serverKey, clientCa } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { serverCert: string; serverKey: string; clientCa: string };

const receipts = { plain: {} as Record<string, number>, mtls: {} as Record<string, number>, oauth2: {} as Record<string, number> };
const issued = new Set<string>();

function receiver(kind: 'plain' | 'mtls' | 'oauth2') {
  return (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      if (request.method === 'GET' && request.url === '/receipts') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipts));
        return;
      }
      if (kind === 'oauth2' && request.url === '/token') {
        const token = randomBytes(24).toString('base64url');
        issued.add(token);
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
        return;
      }
      const id = request.headers['webhook-id'];
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      // Counted only with a verified client certificate (mtls) or a token the token endpoint issued (oauth2).
      const verified = kind === 'plain' || (kind === 'mtls' ? (request.socket as TLSSocket).authorized : bearer !== undefined && issued.has(bearer));
      if (!verified) {
        response.writeHead(401).end();
        return;
      }
      if (typeof id === 'string') receipts[kind][id] ??= Date.now();
      response.writeHead(200).end();
    });
  };
}

const plain = createHttpServer({ keepAliveTimeout: 30_000 }, receiver('plain'));
const mtls = createHttpsServer({ cert: serverCert, key: serverKey, ca: clientCa, requestCert: true, rejectUnauthorized: true, keepAliveTimeout: 30_000 }, receiver('mtls'));
const oauth2 = createHttpServer({ keepAliveTimeout: 30_000 }, receiver('oauth2'));
await Promise.all([plain, mtls, oauth2].map((server) => new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))));
process.stdout.write(`${JSON.stringify({ plain: (plain.address() as AddressInfo).port, mtls: (mtls.address() as AddressInfo).port, oauth2: (oauth2.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => process.exit(0));
