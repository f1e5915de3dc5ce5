// Whether a store error means "the store cannot be reached right now" (worth a 503 and a retry by
// the caller) rather than a bug. Core owns this judgement because it owns the driver; the host
// only maps the answer to HTTP.
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoExpiredSessionError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { HeraldError } from '../shared/errors.js';

/** The store did not answer in time or could not be reached; the request may be retried. */
export class StoreUnavailableError extends HeraldError {
  /** Seconds after which a retry is worth it. */
  readonly retryAfterSeconds: number;
  constructor(message = 'The database is unavailable; retry shortly', options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('SERVICE_UNAVAILABLE', message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** FerretDB v1's backend-busy errors: safe to retry, the statement did not apply. */
export function isTransientStoreError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 1 && typeof message === 'string' && /database is locked|SQLITE_BUSY|deadlock detected/i.test(message);
}

/** The codes of a connection's socket failing under it. */
const SOCKET_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  // A bulk write (insertMany, bulkWrite) that lost its connection throws a MongoBulkWriteError
  // whose `errorResponse` is the network error.
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error && error.errorResponse !== error) {
    return isStoreUnavailable(error.errorResponse);
  }
  if (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError ||
    // Herald starts no sessions of its own: the driver's implicit session of an operation ends
    // only when its client closes under it (the client keeper reopening the client after an
    // outage), the error most such operations end with.
    error instanceof MongoExpiredSessionError ||
    error instanceof MongoOperationTimeoutError
  ) {
    return true;
  }
  // The connection pool's own errors are not exported: a pool closed under an operation (the
  // client keeper reopening the client after an outage) or no connection free in time.
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'MongoPoolClosedError' || name === 'MongoWaitQueueTimeoutError') return true;
  // A command written to a connection the store has just closed fails with the socket's own error,
  // which the driver passes on unwrapped (a write after the peer's FIN: EPIPE). Herald's only other
  // outbound I/O, the engine's sender (attempts, OAuth2 tokens), turns its errors into outcomes, so
  // a socket error that reaches this judgement came from the store's connection.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && SOCKET_ERROR_CODES.has(code)) return true;
  // Transient errors that outlived their bounded retries.
  if (isTransientStoreError(error)) return true;
  const labels = (error as { errorLabels?: unknown } | null)?.errorLabels;
  return Array.isArray(labels) && labels.includes('TransientTransactionError');
}

/**
 * Settles as `operation` does, or rejects with StoreUnavailableError once `ms` have passed. The
 * driver's `socketTimeoutMS` is a timer on the socket: a command written to a connection whose peer
 * closed it a moment before waits for a drain that a closed socket never emits, with no timer left
 * to end it (seen with mongodb 6.22 when the network to the store is cut), so without this bound
 * one such command would hold whoever awaits it for good.
 */
export function withinDeadline<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`The database did not answer within ${ms} ms; retry shortly`)), ms);
    timer.unref();
  });
  return Promise.race([operation, expired]).finally(() => clearTimeout(timer));
}

/**
 * Driver defaults for a client Herald creates, unless the connection string sets them: a request
 * must fail within seconds when no server is reachable (the driver's default waits 30 s), and an
 * operation a server accepted but never answers must not hang forever.
 */
export const CLIENT_TIMEOUT_DEFAULTS = { serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 60_000 } as const;

export function clientTimeoutOptions(uri: string): Partial<Record<keyof typeof CLIENT_TIMEOUT_DEFAULTS, number>> {
  const query = uri.split('?')[1] ?? '';
  const set = new Set(query.split('&').map((pair) => pair.split('=')[0]!.toLowerCase()));
  return Object.fromEntries(Object.entries(CLIENT_TIMEOUT_DEFAULTS).filter(([name]) => !set.has(name.toLowerCase())));
}
