// Sends one HTTP request with node:http(s) and returns the body as raw bytes. node:http rather than
// fetch: it starts faster, sends no Accept-Encoding of its own and never decodes the body, so what
// the server sent is exactly what the caller gets.
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { RequestUrl } from './endpoint.js';
import { CliError, ExitCode } from '../errors.js';

export type HttpHeader = readonly [name: string, value: string];

export interface HttpRequest {
  readonly method: string;
  readonly url: RequestUrl;
  readonly headers: readonly HttpHeader[];
  readonly body: Uint8Array | undefined;
}

/** Methods whose requests carry content; one sent without a body still says so (RFC 9110 §8.6). */
const methodsWithContent = new Set(['POST', 'PUT', 'PATCH']);

export interface HttpResponse {
  readonly httpVersion: string;
  readonly statusCode: number;
  readonly statusMessage: string;
  /** In the order and letter case the server sent them. */
  readonly headers: readonly HttpHeader[];
  readonly body: Buffer;
}

export function headerValue(headers: readonly HttpHeader[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([headerName]) => headerName.toLowerCase() === lower)?.[1];
}

function pairs(rawHeaders: readonly string[]): HttpHeader[] {
  const result: HttpHeader[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    result.push([rawHeaders[index] as string, rawHeaders[index + 1] as string]);
  }
  return result;
}

export async function sendHttpRequest(request: HttpRequest): Promise<HttpResponse> {
  const transport = request.url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  // With a raw header array Node adds no Host header of its own.
  const headers: string[] = request.headers.some(([name]) => name.toLowerCase() === 'host') ? [] : ['Host', request.url.host];
  for (const [name, value] of request.headers) headers.push(name, value);
  if (request.body) {
    headers.push('Content-Length', String(request.body.byteLength));
  } else if (methodsWithContent.has(request.method) && !request.headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))) {
    // Otherwise Node announces a chunked body, which servers (Fastify among them) then try to parse.
    headers.push('Content-Length', '0');
  }
  const options: RequestOptions = {
    method: request.method,
    // Given here rather than through a URL object, so nothing re-parses an escaped `%2E%2E` segment.
    path: request.url.pathname + request.url.search,
    // A flat [name, value, …] array keeps the user's header letter case and order.
    headers,
    agent: false, // one request, one connection: nothing keeps the process alive afterwards
  };
  return new Promise<HttpResponse>((resolve, reject) => {
    const outgoing = transport.request(request.url.origin, options, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          httpVersion: response.httpVersion,
          statusCode: response.statusCode ?? 0,
          statusMessage: response.statusMessage ?? '',
          headers: pairs(response.rawHeaders),
          body: Buffer.concat(chunks),
        }),
      );
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(new CliError('NETWORK_ERROR', `request to ${request.url.origin} failed: ${error.code ?? error.message}`, ExitCode.network)),
    );
    outgoing.end(request.body);
  });
}
