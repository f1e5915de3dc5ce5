// The listeners this process holds (`herald webhooks listen`). A delivery the engine POSTs to the
// internal route is pushed to the listener's stream and parked until the CLI replies with what the
// developer's receiver answered, or until the subscriber's timeout, whichever is first. A listener
// outlives a dropped stream for a grace period (routes/webhook-listen.ts) so the CLI can resume it
// with the same secret; meanwhile it has no stream and the internal route asks the engine to retry.
// In memory by design: a listener works through the replica holding it (docs/server.md).
import { randomBytes } from 'node:crypto';

/** Where the engine POSTs a listener's deliveries on this host; the listener id follows. */
export const LISTEN_PATH = '/internal/listen/';

export interface ListenerReply {
  status: number;
  body?: string;
  durationMs: number;
}

export interface PushedDelivery {
  deliveryId: string;
  headers: Record<string, string>;
  body: string;
}

/** One open SSE response. */
export interface ListenerStream {
  send(event: string, data: unknown): void;
  /** Ends the stream. */
  end(): void;
}

export interface LiveListener {
  id: string;
  orgId: string;
  /** The token principal that opened it; only it may reply, resume or close it. */
  principalId: string;
  secret: string;
  /** The event patterns it was opened with; a resume must ask for the same ones. */
  events: readonly string[];
  timeoutMs: number;
  /** Undefined between a dropped stream and its resume (the grace period). */
  stream: ListenerStream | undefined;
}

interface Parked {
  listenerId: string;
  resolve(reply: ListenerReply | undefined): void;
}

export class ListenerRegistry {
  private readonly listeners = new Map<string, LiveListener>();
  private readonly parked = new Map<string, Parked>();

  add(listener: LiveListener): void {
    this.listeners.set(listener.id, listener);
  }

  get(id: string): LiveListener | undefined {
    return this.listeners.get(id);
  }

  all(): LiveListener[] {
    return [...this.listeners.values()];
  }

  /**
   * Gives the listener a new stream; the one it had, if any (a connection the CLI gave up on but
   * the server has not seen close yet), is returned so the caller can end it.
   */
  attach(id: string, stream: ListenerStream): ListenerStream | undefined {
    const listener = this.listeners.get(id);
    if (!listener) return undefined;
    const previous = listener.stream;
    listener.stream = stream;
    return previous;
  }

  /**
   * Takes the stream away if it is still the listener's current one; false when a resume already
   * replaced it (or the listener is gone), so a late close of an old stream changes nothing.
   */
  detach(id: string, stream: ListenerStream): boolean {
    const listener = this.listeners.get(id);
    if (!listener || listener.stream !== stream) return false;
    listener.stream = undefined;
    return true;
  }

  /** Forgets the listener; its parked deliveries end unanswered (the engine records a failure). */
  remove(id: string): void {
    this.listeners.delete(id);
    for (const [deliveryId, parked] of this.parked) {
      if (parked.listenerId === id) {
        this.parked.delete(deliveryId);
        parked.resolve(undefined);
      }
    }
  }

  /**
   * Pushes a delivery to the stream; resolves with the CLI's reply, or undefined after `waitMs`.
   * A dropped stream does not end the wait: the CLI may still reply over the API (it got the
   * delivery before the drop), before or after it resumes.
   */
  push(listenerId: string, stream: ListenerStream, delivery: Omit<PushedDelivery, 'deliveryId'>, waitMs: number): Promise<ListenerReply | undefined> {
    const deliveryId = `lsd_${randomBytes(12).toString('hex')}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.parked.delete(deliveryId);
        resolve(undefined);
      }, waitMs);
      this.parked.set(deliveryId, {
        listenerId,
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
      });
      stream.send('delivery', { deliveryId, ...delivery });
    });
  }

  /** False when nothing waits for this reply (late, duplicate or foreign). */
  reply(listenerId: string, deliveryId: string, reply: ListenerReply): boolean {
    const parked = this.parked.get(deliveryId);
    if (!parked || parked.listenerId !== listenerId) return false;
    this.parked.delete(deliveryId);
    parked.resolve(reply);
    return true;
  }
}
