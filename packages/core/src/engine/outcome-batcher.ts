// Outcomes are group-committed: buffered for a turn of the event loop, then written a batch per
// command (store/outcomes.ts), with up to `compat.writeConcurrency` batches in flight. An attempt
// holds its slot until its outcome is written, not only while it sends: so at most `concurrency`
// attempts can be repeated after a crash, and a subscriber's cap covers them too.
import type { EngineLogger } from '../shared/logger.js';
import type { Outcome, OutcomeStore } from './store/outcomes.js';
import { describeError } from './describe-error.js';

export interface OutcomeBatcherDeps {
  store: Pick<OutcomeStore, 'writeOutcomes'>;
  writeConcurrency: number;
  batchLimit: number;
  now(): Date;
  logger: EngineLogger;
  /** Rows became due (the next of ordered keys): poll. */
  onReleased(): void;
  /** A write ended, whatever its result: the engine may have become idle. */
  onWritten(): void;
}

export class OutcomeBatcher {
  private readonly waiting: Array<{ outcome: Outcome; release: () => void }> = [];
  private readonly recording = new Set<() => void>();
  private writes = 0;
  private scheduled = false;

  private readonly deps: OutcomeBatcherDeps;

  constructor(deps: OutcomeBatcherDeps) {
    this.deps = deps;
  }

  /** Nothing waits to be written and no write is in flight. */
  get idle(): boolean {
    return this.waiting.length === 0 && this.writes === 0;
  }

  /** Whether `release` belongs to an outcome being recorded (it is called once that write ends). */
  holds(release: () => void): boolean {
    return this.recording.has(release);
  }

  record(outcome: Outcome, release: () => void): void {
    this.waiting.push({ outcome, release });
    this.recording.add(release);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.waiting.length > 0 && this.writes < this.deps.writeConcurrency) {
      const pending = this.waiting.splice(0, this.deps.batchLimit);
      const batch = pending.map((entry) => entry.outcome);
      this.writes += 1;
      void this.deps.store
        .writeOutcomes(batch, this.deps.now())
        .then(({ written, released }) => {
          if (released > 0) this.deps.onReleased();
          if (written < batch.length) this.deps.logger.warn({ lost: batch.length - written }, 'some outcomes were not recorded: their leases had been taken over');
        })
        .catch((error: unknown) => {
          // The rows stay IN_FLIGHT; lease recovery returns them to PENDING and they are resent.
          this.deps.logger.error({ err: describeError(error), rows: batch.length }, 'writing delivery outcomes failed');
        })
        .finally(() => {
          this.writes -= 1;
          for (const { release } of pending) {
            this.recording.delete(release);
            release();
          }
          this.flush();
          this.deps.onWritten();
        });
    }
  }
}
