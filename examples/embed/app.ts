// An application that embeds Herald: it registers its event catalog, registers a subscriber
// at start-up, and publishes an event from inside its own request handler. The event is durable
// in MongoDB when publish() resolves; delivery happens in the background.
import { createServer, type Server } from 'node:http';
import { createHerald, type Herald } from '@herald/core';

export interface EmbedOptions {
  mongoUri: string;
  dbName: string;
  /** 32 bytes, base64: seals subscriber secrets at rest. */
  masterKey: string;
  /** Where order events go, and the secret they are signed with. */
  subscriber: { targetUrl: string; secret: string };
  /** CIDRs the SSRF guard lets through (loopback for a local receiver). */
  ssrfAllowList?: string[];
}

const scope = { orgId: 'shop', actor: 'shop-app' };

export async function startApp(options: EmbedOptions): Promise<{ server: Server; herald: Herald; close(): Promise<void> }> {
  const herald = await createHerald({
    mongo: { uri: options.mongoUri, dbName: options.dbName },
    masterKeys: { current: 'k1', keys: { k1: options.masterKey } },
    eventTypes: [
      { type: 'order.created' },
      { type: 'payment.captured', sensitive: ['cardNumber'] },
    ],
    delivery: { ssrfAllowList: options.ssrfAllowList ?? [] },
  });
  await herald.start();
  await herald.subscribers
    .create(scope, { id: 'billing', displayName: 'Billing service', targetUrl: options.subscriber.targetUrl, secret: options.subscriber.secret, events: ['order.*', 'payment.*'] })
    .catch((error: { code?: string }) => {
      if (error.code !== 'CONFLICT') throw error; // already registered by an earlier run
    });

  let nextOrder = 1;
  const server = createServer(async (request, response) => {
    if (request.method === 'POST' && request.url === '/orders') {
      const orderId = `o-${nextOrder++}`;
      // … the app's own work (store the order) would go here …
      await herald.events.publish(scope, { eventType: 'order.created', aggregateId: orderId, data: { orderId, total: 42 } });
      await herald.events.publish(scope, {
        eventType: 'payment.captured',
        aggregateId: orderId,
        data: { orderId, amount: 42, cardNumber: '4111111111111111' },
      });
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ orderId }));
      return;
    }
    response.writeHead(404).end();
  });
  return {
    server,
    herald,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await herald.close();
    },
  };
}

// Run directly: MONGODB_URI=… MASTER_KEY=… TARGET_URL=… WEBHOOK_SECRET=… node examples/embed/app.ts
if (import.meta.main) {
  const env = (name: string): string => process.env[name] ?? (console.error(`set ${name}`), process.exit(1));
  const app = await startApp({
    mongoUri: env('MONGODB_URI'),
    dbName: process.env.DB_NAME ?? 'shop',
    masterKey: env('MASTER_KEY'),
    subscriber: { targetUrl: env('TARGET_URL'), secret: env('WEBHOOK_SECRET') },
    ssrfAllowList: (process.env.SSRF_ALLOW ?? '').split(',').filter(Boolean),
  });
  const port = Number(process.env.PORT ?? 3001);
  app.server.listen(port, '127.0.0.1', () => console.log(`shop on http://127.0.0.1:${port}/ — POST /orders`));
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
