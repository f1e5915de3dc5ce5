// Requests Node's HTTP parser rejects (malformed framing, oversized headers, timeouts) never reach a
// route or the error handler; this answers them in the same ErrorResponse shape, with a request id
// that the log line names too, before closing.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './error-reply.js';

const BY_PARSER_CODE: Record<string, { status: number; body: ErrorBody }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, body: { status: 'error', code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive' } },
  HPE_HEADER_OVERFLOW: { status: 431, body: { status: 'error', code: 'HEADERS_TOO_LARGE', message: 'Request headers are too large' } },
};
const MALFORMED = { status: 400, body: { status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'Malformed HTTP request' } as ErrorBody };

export function handleClientError(this: FastifyInstance | undefined, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } = BY_PARSER_CODE[error.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  this?.log.info({ reqId: requestId, parserCode: error.code, statusCode: status }, 'request rejected by the HTTP parser');
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
