// Starting while the database cannot be reached: the host connects again every few seconds and,
// meanwhile, answers on its port instead of exiting — /healthz 200 (the process is fine; restarting
// it would not bring the database back), /readyz 503 naming the database's hosts, and every other
// request 503 with Retry-After in the API's error shape. A crash loop would say the same thing
// less clearly, and later than the log line written on the first failure.
import { createServer, type Server } from 'node:http';
import { isStoreUnavailable, StoreUnavailableError } from '@herald/core';
import type { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { toErrorReply } from './errors/error-reply.js';

const RETRY_EVERY_MS = 3_000;

/** The hosts of the connection string, never its credentials or options. */
export function databaseHosts(client: MongoClient): string {
  return client.options.hosts.map((host) => host.toString()).join(',');
}

export interface StoreWaitOptions {
  logger: Logger;
  listen: { host: string; port: number };
  /** What /readyz reports for the engine while waiting. */
  engine: 'stopped' | 'disabled';
  retryEveryMs?: number;
}

/** Resolves once `client` is connected; rejects at once for errors other than "unreachable" (bad credentials, say). */
export async function connectWhenReachable(client: MongoClient, options: StoreWaitOptions): Promise<void> {
  let answering: Server | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.connect();
        if (attempt > 1) options.logger.info({ database: databaseHosts(client), attempts: attempt }, 'the database answers; starting');
        return;
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        if (attempt === 1) {
          options.logger.error(
            { database: databaseHosts(client), err: { message: (error as Error).message } },
            `cannot reach the database at ${databaseHosts(client)}; answering 503 on ${options.listen.host}:${options.listen.port} and connecting again every ${(options.retryEveryMs ?? RETRY_EVERY_MS) / 1000} s`,
          );
          answering = await answerUnavailable(client, options);
        }
        await new Promise((resolve) => setTimeout(resolve, options.retryEveryMs ?? RETRY_EVERY_MS));
      }
    }
  } finally {
    if (answering) {
      const server = answering;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

async function answerUnavailable(client: MongoClient, options: StoreWaitOptions): Promise<Server> {
  const database = `${databaseHosts(client)} does not answer`;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') return json(503, { status: 'not ready', mongo: false, engine: options.engine, database });
    // Only /readyz names the database: an API caller learns no more than that it is unavailable.
    const reply = toErrorReply(new StoreUnavailableError(), '');
    return json(reply.statusCode, reply.body, reply.headers);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => resolve());
  });
  return server;
}
