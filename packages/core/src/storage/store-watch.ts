// Whether the store is answering, judged from the driver's connection pool: an operation holds a
// connection from its check-out until its answer (or failure) checks it back in. A busy store keeps
// checking connections back in, a stuck one checks in none while operations wait. That is what lets
// the host tell "busy" (ready, keep waiting) from "stuck" (503 now, not ready). A lone slow
// operation looks like silence too, so when operations have waited a while with none answered the
// watch sends one small read of its own (`probe`): a store that answers it is busy, and its answer
// ends the silence. The same answer ends it for a connection held with no command waiting (a
// cursor pinned to it behind a load balancer).
// The pool's events are emitted on every client. Command events would say the same, but only on a
// client created with `monitorCommands`, which then decodes every reply once more for its event.
import type { ConnectionCheckedInEvent, ConnectionCheckedOutEvent, MongoClient } from 'mongodb';

export interface StoreWatch {
  /**
   * How long operations have waited with none answered: 0 when none waits, else the time since the
   * later of the last answer and the oldest waiting operation's start.
   */
  silentForMs(): number;
  /** Milliseconds since the store last answered any operation (Infinity before the first). */
  sinceLastAnswerMs(): number;
  /** Operations holding a connection and not answered yet. */
  readonly waiting: number;
  stop(): void;
}

export interface StoreWatchOptions {
  now?: () => number;
  /** A small read of Herald's, sent when commands have waited `probeAfterMs` with none answered. */
  probe?: () => Promise<unknown>;
  probeAfterMs?: number;
}

const PROBE_CHECK_INTERVAL_MS = 250;

export function watchStore(client: MongoClient, options: StoreWatchOptions = {}): StoreWatch {
  const { now = Date.now, probe, probeAfterMs = 500 } = options;
  // Keyed by server and connection id; Map keeps insertion order, so the first entry is the oldest.
  const pending = new Map<string, number>();
  let lastAnswerAt = Number.NEGATIVE_INFINITY;
  const started = (event: ConnectionCheckedOutEvent) => pending.set(`${event.address} ${event.connectionId}`, now());
  const answered = (event: ConnectionCheckedInEvent) => {
    pending.delete(`${event.address} ${event.connectionId}`);
    lastAnswerAt = now();
  };
  client.on('connectionCheckedOut', started);
  client.on('connectionCheckedIn', answered);
  const silentForMs = (): number => {
    const oldest = pending.values().next();
    if (oldest.done) return 0;
    return Math.max(0, now() - Math.max(lastAnswerAt, oldest.value));
  };
  let probing = false;
  const prober = probe
    ? setInterval(() => {
        if (probing || silentForMs() < probeAfterMs) return;
        probing = true;
        void probe()
          .catch(() => undefined)
          .finally(() => {
            probing = false;
          });
      }, PROBE_CHECK_INTERVAL_MS).unref()
    : undefined;
  return {
    silentForMs,
    sinceLastAnswerMs: () => now() - lastAnswerAt,
    get waiting() {
      return pending.size;
    },
    stop() {
      clearInterval(prober);
      client.off('connectionCheckedOut', started);
      client.off('connectionCheckedIn', answered);
    },
  };
}
