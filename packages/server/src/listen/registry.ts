// The listeners whose SSE stream this process holds (`herald webhooks listen`). A delivery the engine
// POSTs to the internal route is pushed to its stream and parked until the CLI replies with what the
// developer's receiver answered, or until the subscriber's timeout, whichever is first. In memory by
// design: a listener works through the replica holding its stream (docs/server.md).
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

export interface LiveListener {
  id: string;
  orgId: string;
  /** The token principal that opened it; only it may reply or close it. */
  principalId: string;
  secret: string;
  timeoutMs: number;
  send(event: string, data: unknown): void;
  /** Ends the stream. */
  end(): void;
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

  /** Pushes a delivery to the stream; resolves with the CLI's reply, or undefined after `waitMs`. */
  push(listener: LiveListener, delivery: Omit<PushedDelivery, 'deliveryId'>, waitMs: number): Promise<ListenerReply | undefined> {
    const deliveryId = `lsd_${randomBytes(12).toString('hex')}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.parked.delete(deliveryId);
        resolve(undefined);
      }, waitMs);
      this.parked.set(deliveryId, {
        listenerId: listener.id,
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
      });
      listener.send('delivery', { deliveryId, ...delivery });
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
