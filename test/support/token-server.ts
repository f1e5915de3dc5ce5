// A real OAuth2 token endpoint on 127.0.0.1 for tests: records each client credentials request and
// answers as the test decides (by default a fresh token `tok-N` that lives an hour).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenGrant {
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
  /** The id and secret of an HTTP Basic header, form-decoded (RFC 6749 §2.3.1). */
  basic?: { clientId: string; clientSecret: string };
}

export type TokenHandler = (grant: TokenGrant, response: ServerResponse, index: number) => void | Promise<void>;

export interface TokenServer {
  url: string;
  grants: TokenGrant[];
  /** The tokens issued by the default handler, in order. */
  issued: string[];
  setHandler(handler: TokenHandler): void;
  /** The default answer: a new token with this expires_in (seconds; undefined leaves it out). */
  issue(expiresIn?: number | undefined): TokenHandler;
  close(): Promise<void>;
}

const formDecode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));

export async function startTokenServer(): Promise<TokenServer> {
  const grants: TokenGrant[] = [];
  const issued: string[] = [];
  const issue = (expiresIn: number | undefined = 3600): TokenHandler => (_grant, response) => {
    const token = `tok-${issued.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
    issued.push(token);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) }));
  };
  let handler: TokenHandler = issue();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
    const authorization = req.headers.authorization ?? '';
    let basic: TokenGrant['basic'];
    if (authorization.startsWith('Basic ')) {
      const [id = '', secret = ''] = Buffer.from(authorization.slice(6), 'base64').toString().split(':');
      basic = { clientId: formDecode(id), clientSecret: formDecode(secret) };
    }
    const grant: TokenGrant = { headers: req.headers, form, ...(basic ? { basic } : {}) };
    grants.push(grant);
    try {
      await handler(grant, res, grants.length - 1);
    } catch {
      if (!res.headersSent) res.writeHead(599).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    grants,
    issued,
    setHandler(next) {
      handler = next;
    },
    issue,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
