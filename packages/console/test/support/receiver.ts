// A real webhook receiver on loopback for the browser tests: it records every delivery, checks its
// Standard Webhooks signature against the secret it is told to expect, and answers with the status
// the test sets (200 or 500 here).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@herald/receiver';

export interface ReceivedDelivery {
  eventId?: string;
  answered: number;
  /** Whether the signature verified with the secret expected at the time. */
  verified: boolean;
}

export interface TestReceiver {
  url: string;
  received: ReceivedDelivery[];
  answerWith(status: number): void;
  expectSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  let status = 200;
  let secret = '';
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let verified = false;
    let eventId: string | undefined;
    try {
      eventId = verify(request.headers, Buffer.concat(chunks), secret).eventId;
      verified = true;
    } catch {
      verified = false;
    }
    received.push({ eventId, answered: status, verified });
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : 'receiver is down for the test');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answerWith: (next) => {
      status = next;
    },
    expectSecret: (next) => {
      secret = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
