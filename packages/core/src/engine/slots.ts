// Admission and slots: how many attempts this engine has in flight, in all and per subscriber, and
// which fresh rows of a publish may start at once. A slot is taken when a row is admitted or
// claimed and given back when its attempt's outcome is written (or its rows were never written).
// The fast path may fill at most `FAST_PATH_SHARE` of the slots, so the poll always has room and
// due retries are never starved by fresh work.
import type { Admission, AdmitRequest } from '../handover/fast-path.js';
import type { EngineConfig } from './config.js';
import type { SubscriberGates } from './subscriber-gates.js';

/** Share of the global slots fresh rows may take without a poll. */
const FAST_PATH_SHARE = 0.75;

export class Slots {
  private inFlightCount = 0;
  private fastInFlight = 0;
  /** Slots of admissions whose rows are being written, by admission. */
  private readonly admitted = new WeakMap<Admission, string[]>();

  private readonly config: EngineConfig;
  readonly gates: SubscriberGates;
  /** Fresh rows found every slot taken: the store's lane favours the engine meanwhile. */
  private readonly onFull: () => void;

  constructor(config: EngineConfig, gates: SubscriberGates, onFull: () => void) {
    this.config = config;
    this.gates = gates;
    this.onFull = onFull;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Slots free for the poll, at most `limit`. */
  free(limit: number): number {
    return Math.min(this.config.concurrency - this.inFlightCount, limit);
  }

  /** Reserves a slot for each fresh row that can start at once (none while the engine is stopping). */
  admit(requests: readonly AdmitRequest[], now: Date, token: string, accepting: boolean): Admission {
    const { concurrency, leaseMarginMs } = this.config;
    const fastCap = Math.max(1, Math.floor(concurrency * FAST_PATH_SHARE));
    let longest = 0;
    const taken: string[] = [];
    const accepted = requests.map(({ subscriberId, timeoutMs, maxConcurrency, rateLimitPerSecond }) => {
      this.gates.learn(subscriberId, { maxConcurrency, rateLimitPerSecond });
      if (!accepting) return false;
      if (this.inFlightCount >= concurrency || this.fastInFlight >= fastCap) {
        this.onFull();
        return false;
      }
      if (!this.gates.admitOne(subscriberId, now.getTime())) return false;
      this.occupy(subscriberId, +1);
      this.fastInFlight += 1;
      taken.push(subscriberId);
      longest = Math.max(longest, timeoutMs);
      return true;
    });
    const admission = { token, leaseUntil: new Date(now.getTime() + longest + leaseMarginMs), accepted };
    if (taken.length > 0) this.admitted.set(admission, taken);
    return admission;
  }

  /** The admission's rows start: from here each slot is its attempt's, given back by `endAttempt`. */
  started(admission: Admission): void {
    this.admitted.delete(admission);
  }

  /** The admission's rows were not written: its slots come back. */
  release(admission: Admission): void {
    for (const subscriberId of this.admitted.get(admission) ?? []) {
      this.occupy(subscriberId, -1);
      this.fastInFlight -= 1;
    }
    this.admitted.delete(admission);
  }

  /** An attempt's outcome is written (or it was never made): its slot comes back. */
  endAttempt(subscriberId: string, fast: boolean): void {
    this.occupy(subscriberId, -1);
    if (fast) this.fastInFlight -= 1;
  }

  occupy(subscriberId: string, delta: number): void {
    this.inFlightCount += delta;
    this.gates.occupy(subscriberId, delta);
  }
}
