// A tiny webhook receiver: verifies each Herald delivery, decrypts its sensitive fields, and
// answers 204 (or 400 for anything it cannot verify). No framework, one dependency.
import { createServer, type Server } from 'node:http';
import { decryptFields, verify, WebhookVerificationError, type SigningProfile } from '@herald/receiver';

export interface ReceivedEvent {
  profile: SigningProfile;
  eventId: string;
  eventType: string;
  /** `data` with every encrypted field replaced by its plaintext. */
  data: Record<string, unknown>;
}

interface AnyEnvelope {
  type?: string;
  event_type?: string;
  data: Record<string, unknown>;
  encryptedFields?: string[];
  encrypted_fields?: string[];
}

export function createReceiver(options: { secret: string; onEvent(event: ReceivedEvent): void }): Server {
  const seen = new Set<string>(); // deliveries are at-least-once: de-duplicate on the event id
  return createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      // Verify the raw bytes, before parsing anything.
      const { profile, eventId, payload } = verify(request.headers, Buffer.concat(chunks), options.secret);
      const envelope = payload as AnyEnvelope;
      const encrypted = envelope.encryptedFields ?? envelope.encrypted_fields ?? [];
      const data = decryptFields(envelope.data, options.secret, profile, encrypted);
      if (!seen.has(eventId)) {
        seen.add(eventId);
        options.onEvent({ profile, eventId, eventType: envelope.type ?? envelope.event_type ?? '', data });
      }
      response.writeHead(204).end();
    } catch (error) {
      const code = error instanceof WebhookVerificationError ? error.code : 'INTERNAL';
      response.writeHead(code === 'INTERNAL' ? 500 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: code }));
    }
  });
}

// Run directly: WEBHOOK_SECRET=… PORT=3000 node examples/receiver/receiver.ts
if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('set WEBHOOK_SECRET to the subscriber secret');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 3000);
  createReceiver({ secret, onEvent: (event) => console.log(JSON.stringify(event)) }).listen(port, '127.0.0.1', () => {
    console.log(`receiving webhooks on http://127.0.0.1:${port}/`);
  });
}
