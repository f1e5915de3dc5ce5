// How work that is not a delivery shares the store with deliveries (pure): after each run it rests
// for the run's own duration × (1 − share) / share, so it holds the store for at most `share` of the
// wall-clock time whatever one run costs — a few milliseconds where the store reads an index range,
// seconds where it decodes a whole collection for the same query (FerretDB v1).

/** Milliseconds to rest after a run that took `runMs`, so that runs take at most `share` of the time. */
export function restAfterRun(runMs: number, share: number): number {
  if (!(runMs > 0)) return 0;
  return Math.ceil((runMs * (1 - share)) / share);
}

/** Whether work paced this way may run again: it may once the rest after its last run is over. */
export class ShareOfTime {
  private readonly share: number;
  private nextRunAt = Number.NEGATIVE_INFINITY;

  constructor(share: number) {
    this.share = share;
  }

  ready(now: number): boolean {
    return now >= this.nextRunAt;
  }

  /** A run that began at `startedAt` ended at `endedAt` (milliseconds on one clock). */
  ran(startedAt: number, endedAt: number): void {
    this.nextRunAt = endedAt + restAfterRun(endedAt - startedAt, this.share);
  }
}
