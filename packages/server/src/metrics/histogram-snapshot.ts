// A histogram whose buckets another component counts (core's engine keeps the first-attempt
// latency as cumulative buckets, sum and count), exposed as it stands at scrape time. prom-client's
// Histogram only counts observations it is given and cannot be handed counted buckets, so this is
// a collector of the shape the registry reads (name, help, type, get()); the registry still writes
// the lines, their labels and numbers.
import type { Metric, Registry } from 'prom-client';

export interface CumulativeHistogram {
  bounds: readonly number[];
  /** Observations ≤ each bound. */
  cumulative: readonly number[];
  sum: number;
  count: number;
}

interface SnapshotValue {
  metricName: string;
  labels: { le?: string };
  value: number;
}

export class HistogramSnapshot {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private current: CumulativeHistogram | undefined;

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
  ) {
    // The registry's type admits only prom-client's own metric classes; it reads nothing of a
    // metric beyond the members this class has.
    registry.registerMetric(this as unknown as Metric);
  }

  /** The histogram the next scrape shows; undefined shows no samples. */
  set(histogram: CumulativeHistogram | undefined): void {
    this.current = histogram;
  }

  /** Resetting is the owner's business; the registry's resetMetrics() leaves the snapshot as it is. */
  reset(): void {}

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: SnapshotValue[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }

  private values(): SnapshotValue[] {
    const histogram = this.current;
    if (!histogram) return [];
    const bucket = `${this.name}_bucket`;
    return [
      ...histogram.bounds.map((bound, index) => ({ metricName: bucket, labels: { le: String(bound) }, value: histogram.cumulative[index] ?? 0 })),
      { metricName: bucket, labels: { le: '+Inf' }, value: histogram.count },
      { metricName: `${this.name}_sum`, labels: {}, value: histogram.sum },
      { metricName: `${this.name}_count`, labels: {}, value: histogram.count },
    ];
  }
}
