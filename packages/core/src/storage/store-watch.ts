// Whether the store is answering, judged from the driver's command events: a busy store keeps
// answering commands, a stuck one answers none while commands wait. That is what lets the host tell
// "busy" (ready, keep waiting) from "stuck" (503 now, not ready). A lone slow command looks like
// silence too, so when commands have waited a while with none answered the watch sends one small
// read of its own (`probe`): a store that answers it is busy, and its answer ends the silence.
// The client must be created with `monitorCommands: true` (`storeClientOptions` sets it): the
// driver fixes the option per connection pool when it connects.
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';

export interface StoreWatch {
  /**
   * How long commands have waited with none answered: 0 when no command waits, else the time since
   * the later of the last answer and the oldest waiting command's start.
   */
  silentForMs(): number;
  /** Milliseconds since the store last answered any command (Infinity before the first). */
  sinceLastAnswerMs(): number;
  /** Commands sent and not answered yet. */
  readonly waiting: number;
  /** False when the client was created without `monitorCommands`: then nothing is seen (silence 0). */
  readonly sees: boolean;
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
  // Keyed by the driver's request id; Map keeps insertion order, so the first entry is the oldest.
  const pending = new Map<number, number>();
  let lastAnswerAt = Number.NEGATIVE_INFINITY;
  const started = (event: CommandStartedEvent) => pending.set(event.requestId, now());
  const answered = (event: CommandSucceededEvent | CommandFailedEvent) => {
    pending.delete(event.requestId);
    lastAnswerAt = now();
  };
  client.on('commandStarted', started);
  client.on('commandSucceeded', answered);
  client.on('commandFailed', answered);
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
    sees: client.options.monitorCommands === true,
    get waiting() {
      return pending.size;
    },
    stop() {
      clearInterval(prober);
      client.off('commandStarted', started);
      client.off('commandSucceeded', answered);
      client.off('commandFailed', answered);
    },
  };
}
