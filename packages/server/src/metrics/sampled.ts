// Series whose figures another component keeps (the engine of this process, the delivery queue in
// MongoDB) and the host only reads at scrape time. Each reading replaces every sample of the
// family, so a subscriber or status no longer reported disappears, and a reading of none (no
// engine in this process) leaves the family with its HELP and TYPE lines only.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface Sample<L extends string> {
  labels?: Partial<Record<L, string>>;
  value: number;
}

export class SampledSeries<R, L extends string = never> {
  private readonly metric: Gauge<L> | Counter<L>;

  constructor(
    registry: Registry,
    type: 'gauge' | 'counter',
    config: { name: string; help: string; labelNames?: readonly L[] },
    private readonly read: (reading: R) => Array<Sample<L>>,
  ) {
    const options = { ...config, registers: [registry] };
    this.metric = type === 'gauge' ? new Gauge(options) : new Counter(options);
  }

  update(reading: R): void {
    const metric = this.metric;
    metric.reset();
    // reset() gives a family without labels a zero sample; only the reading says whether there is one.
    metric.remove({});
    for (const { labels = {}, value } of this.read(reading)) {
      if (metric instanceof Gauge) metric.set(labels, value);
      else metric.inc(labels, value);
    }
  }
}
