// A minimal Prometheus text-format registry (counters, gauges, histograms with labels). Hand-rolled:
// the host needs a handful of series, not a client library.

type Labels = Record<string, string>;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(',')}}`;
}

function keyOf(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

export interface Metric {
  render(): string;
}

export class Counter implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  inc(labels: Labels = {}, amount = 1): void {
    const key = keyOf(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += amount;
    else this.values.set(key, { labels, value: amount });
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

/** A gauge or counter whose value is read at scrape time (from the engine or MongoDB). */
export class Sampled implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly type: 'gauge' | 'counter',
    private readonly samples: () => Array<{ labels?: Labels; value: number }>,
  ) {}

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const { labels, value } of this.samples()) lines.push(`${this.name}${labelText(labels ?? {})} ${value}`);
    return lines.join('\n');
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    this.bounds.forEach((bound, index) => {
      if (value <= bound) entry.buckets[index]! += 1;
    });
    entry.sum += value;
    entry.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      this.bounds.forEach((bound, index) => {
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${buckets[index]}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join('\n');
  }
}

/** A histogram another component keeps (cumulative buckets), rendered as it stands. */
export class HistogramSnapshot implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly snapshot: () => { bounds: readonly number[]; cumulative: number[]; sum: number; count: number } | undefined,
  ) {}

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    const current = this.snapshot();
    if (current) {
      current.bounds.forEach((bound, index) => lines.push(`${this.name}_bucket${labelText({ le: String(bound) })} ${current.cumulative[index] ?? 0}`));
      lines.push(`${this.name}_bucket${labelText({ le: '+Inf' })} ${current.count}`, `${this.name}_sum ${current.sum}`, `${this.name}_count ${current.count}`);
    }
    return lines.join('\n');
  }
}

export function renderMetrics(metrics: Metric[]): string {
  return `${metrics.map((metric) => metric.render()).join('\n')}\n`;
}
