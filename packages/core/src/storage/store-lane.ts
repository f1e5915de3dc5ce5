// The lane FerretDB v1's operations go through (part of the compatibility seam, storage/compat.ts).
//
// Why bounded: FerretDB holds one pooled PostgreSQL connection per statement until a command ends,
// so commands side by side without a bound drained its pool and then went unanswered until the
// driver's 60 s socket timeout. Commands are at most `maxWriteBatch` statements; three at once stay
// well inside the pool the dev stack gives FerretDB.
//
// Why two kinds: every query on FerretDB's PostgreSQL handler reads the whole collection (equality
// is pushed down as JSON containment, which no index serves), so the cost of the engine's claims
// grows with the queue. Publishes may therefore run beside the engine only while the engine keeps
// up: when its slots are full or due rows wait in the store (`backlog`), a publish waits until no
// engine operation runs, which slows publishing to the pace of delivery instead of letting the
// queue, and with it every claim, grow. Measured (bench scenarios (a) and (e), quick runs): one
// operation at a time, engine first, gave fan-out 938 deliveries/s and 8–16 publishes/s beside a
// receiver failing every attempt; publishes beside the engine without the backlog rule, 121–400/s
// and 800/s; this lane, 730/s (p95 138 ms) and 355/s.
import { isStoreUnavailable, StoreUnavailableError } from './availability.js';

/** After an operation finds the store unreachable, queued and new ones fail at once for this long. */
export const UNREACHABLE_WINDOW_MS = 1_000;

const ENGINE_WIDTH = 2;
const OTHERS_WIDTH = 1;

interface Section {
  run: () => Promise<void>;
  reject: (error: unknown) => void;
  engine: boolean;
}

export class StoreLane {
  private readonly engine: Section[] = [];
  private readonly others: Section[] = [];
  private runningEngine = 0;
  private runningOthers = 0;
  private backlog = false;
  private unreachableUntil = 0;

  run<T>(section: () => Promise<T>, engine = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (engine ? this.engine : this.others).push({ run: () => section().then(resolve), reject, engine });
      this.drain();
    });
  }

  /** Whether deliveries wait on the engine; while they do, others wait for the engine's operations. */
  setBacklog(present: boolean): void {
    if (this.backlog === present) return;
    this.backlog = present;
    if (!present) this.drain();
  }

  private next(): Section | undefined {
    if (this.runningEngine < ENGINE_WIDTH && this.engine.length > 0) return this.engine.shift();
    if (this.runningOthers >= OTHERS_WIDTH) return undefined;
    if (this.backlog && (this.runningEngine > 0 || this.engine.length > 0)) return undefined;
    return this.others.shift();
  }

  private drain(): void {
    for (let section = this.next(); section; section = this.next()) {
      // When one operation finds the store unreachable, those queued behind it fail at once instead
      // of each waiting out its own timeout in turn; the first one after the window probes again.
      if (Date.now() < this.unreachableUntil) {
        section.reject(new StoreUnavailableError());
        continue;
      }
      this.start(section);
    }
  }

  private start(section: Section): void {
    if (section.engine) this.runningEngine++;
    else this.runningOthers++;
    void section
      .run()
      .catch((error: unknown) => {
        if (isStoreUnavailable(error)) this.unreachableUntil = Date.now() + UNREACHABLE_WINDOW_MS;
        section.reject(error);
      })
      .finally(() => {
        if (section.engine) this.runningEngine--;
        else this.runningOthers--;
        this.drain();
      });
  }
}
