// Certificates made for a test with the system's openssl (node:crypto parses X.509 but cannot issue
// it): a private CA, leaf certificates it signs, and an HTTPS receiver that requires a client
// certificate. Everything lives in a temporary directory removed by `dispose`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface Pem {
  cert: string;
  key: string;
}

export interface CertificateFactory {
  /** A self-signed CA. */
  authority(name: string): Pem;
  /** A leaf signed by `ca`; `serverNames` makes it a server certificate for those names/addresses. */
  leaf(name: string, ca: Pem, options?: { serverNames?: string[] }): Pem;
  dispose(): void;
}

export function certificateFactory(): CertificateFactory {
  const directory = mkdtempSync(join(tmpdir(), 'herald-certs-'));
  let serial = 0;
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const read = (prefix: string): Pem => ({ cert: readFileSync(join(directory, `${prefix}.crt`), 'utf8'), key: readFileSync(join(directory, `${prefix}.key`), 'utf8') });
  return {
    authority(name) {
      serial += 1;
      const prefix = `ca${serial}`;
      openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
        '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
        '-keyout', `${prefix}.key`, '-out', `${prefix}.crt`]);
      return read(prefix);
    },
    leaf(name, ca, options = {}) {
      serial += 1;
      const prefix = `leaf${serial}`;
      writeFileSync(join(directory, `${prefix}-ca.crt`), ca.cert);
      writeFileSync(join(directory, `${prefix}-ca.key`), ca.key);
      const names = options.serverNames ?? [];
      const extensions = names.length > 0
        ? ['-addext', `subjectAltName=${names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',')}`, '-addext', 'extendedKeyUsage=serverAuth']
        : ['-addext', 'extendedKeyUsage=clientAuth'];
      openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
        '-CA', `${prefix}-ca.crt`, '-CAkey', `${prefix}-ca.key`, '-addext', 'basicConstraints=critical,CA:FALSE', ...extensions,
        '-keyout', `${prefix}.key`, '-out', `${prefix}.crt`]);
      return read(prefix);
    },
    dispose() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface MtlsRequest {
  path: string;
  body: string;
  /** The subject CN of the client certificate the connection presented. */
  peerCommonName: string | undefined;
}

export interface MtlsReceiver {
  url: string;
  port: number;
  received: MtlsRequest[];
  /** TLS handshakes refused (no client certificate, or one no trusted CA signed). */
  refusedHandshakes: number;
  close(): Promise<void>;
}

/**
 * An HTTPS receiver on 127.0.0.1 that requires a client certificate signed by `clientCa`, answering
 * 204; with `clientCa` undefined, one that asks for none (plain TLS, e.g. on a private CA).
 */
export async function startMtlsReceiver(server: Pem, clientCa: string | string[] | undefined): Promise<MtlsReceiver> {
  const received: MtlsRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { refusedHandshakes: 0 };
  const clientAuth = clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: true };
  const https: Server = createServer({ cert: server.cert, key: server.key, ...clientAuth }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const cn = peer.subject?.CN;
    received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), peerCommonName: Array.isArray(cn) ? cn[0] : cn });
    res.writeHead(204).end();
  });
  https.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  https.on('tlsClientError', () => {
    state.refusedHandshakes += 1;
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    received,
    get refusedHandshakes() {
      return state.refusedHandshakes;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => https.close(() => resolve()));
    },
  };
}
