// The operator's Prometheus series, in a prom-client registry of its own rather than the library's
// global one, so an application embedding the operator keeps its metrics apart and two operators
// in one process (tests) each report their own. A counter is created on its first increment, so a
// series appears once what it counts has happened. A gauge is read at scrape time; registering it
// again (the controller of a new leadership term) replaces what it reads.
import { Counter, Gauge, Registry } from 'prom-client';

type Labels = Record<string, string>;

export class Metrics {
  private readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly counters = new Map<string, Counter>();
  private readonly gauges = new Map<string, { read: () => number }>();

  increment(name: string, help: string, labels: Labels = {}, by = 1): void {
    let counter = this.counters.get(name);
    if (!counter) {
      counter = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] });
      this.counters.set(name, counter);
    }
    counter.inc(labels, by);
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => number): void {
    const known = this.gauges.get(name);
    if (known) {
      known.read = read;
      return;
    }
    const source = { read };
    this.gauges.set(name, source);
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(source.read());
      },
    });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
