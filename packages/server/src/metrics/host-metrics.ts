// The host's Prometheus series: HTTP requests by route and status (recorded by hooks), delivery
// figures from the engine (this process) and the queue (MongoDB, cluster-wide). They live in a
// registry of their own, not prom-client's global one, so an application embedding the host keeps
// its metrics apart and two hosts in one process (tests) do not collide.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry } from 'prom-client';
import { HistogramSnapshot } from './histogram-snapshot.js';
import type { QueueStats } from './queue-stats.js';
import { SampledSeries, type Sample } from './sampled.js';

export interface EngineFigures {
  running: boolean;
  inFlight: number;
  delivered: number;
  failed: number;
  retried: number;
  bySubscriber: Array<{ orgId: string; subscriber: string; delivered: number; failed: number; retried: number }>;
  firstAttemptLatency: { bounds: readonly number[]; cumulative: number[]; sum: number; count: number };
  prunedEvents?: number;
  loop: { stepForMs: number; sinceKeptUpMs: number; stuck: boolean; stalled: boolean };
}

export interface MetricSources {
  engine(): EngineFigures | undefined;
  queue(): Promise<QueueStats>;
  /** Durations (s) of delivery attempts that finished in (since, until], cluster-wide. */
  attemptDurationsBetween(since: Date, until: Date): Promise<number[]>;
}

/** What one scrape read: the engine's figures (none when this process runs no engine) and the queue's. */
interface Reading {
  engine: EngineFigures | undefined;
  queue: QueueStats;
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const fromEngine = (pick: (engine: EngineFigures) => number) => ({ engine }: Reading) => (engine ? [{ value: pick(engine) }] : []);

export class HostMetrics {
  private readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestDuration: Histogram<'route'>;
  private readonly attemptDuration: Histogram;
  private readonly firstAttemptLatency: HistogramSnapshot;
  /** The series each scrape reads whole from the engine and the queue. */
  private readonly sampled: Array<{ update(reading: Reading): void }> = [];
  private attemptsObservedUntil = new Date();

  // The exposition lists the series in the order they are created here.
  constructor() {
    const registers = [this.registry];
    const sampled = <L extends string = never>(type: 'gauge' | 'counter', config: { name: string; help: string; labelNames?: readonly L[] }, read: (reading: Reading) => Array<Sample<L>>) => {
      this.sampled.push(new SampledSeries(this.registry, type, config, read));
    };

    this.requests = new Counter({ name: 'herald_http_requests_total', help: 'HTTP requests by method, route and status.', labelNames: ['method', 'route', 'status'], registers });
    this.requestDuration = new Histogram({ name: 'herald_http_request_duration_seconds', help: 'HTTP request duration by route.', labelNames: ['route'], buckets: HTTP_BUCKETS, registers });
    sampled('gauge', { name: 'herald_engine_running', help: 'Whether this process runs the delivery engine (1/0).' }, ({ engine }) => [{ value: engine?.running ? 1 : 0 }]);
    sampled('gauge', { name: 'herald_deliveries_in_flight', help: 'Delivery attempts in flight in this process.' }, fromEngine((e) => e.inFlight));
    sampled(
      'counter',
      { name: 'herald_delivery_attempts_total', help: 'Delivery attempts finished by this process, by outcome.', labelNames: ['outcome'] },
      ({ engine }) =>
        engine
          ? [
              { labels: { outcome: 'delivered' }, value: engine.delivered },
              { labels: { outcome: 'failed' }, value: engine.failed },
              { labels: { outcome: 'retried' }, value: engine.retried },
            ]
          : [],
    );
    this.attemptDuration = new Histogram({
      name: 'herald_delivery_attempt_duration_seconds',
      help: 'Delivery attempt latency (attempts of every replica, observed by this process since its start).',
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    sampled(
      'gauge',
      {
        name: 'herald_engine_loop_step_seconds',
        help: 'How long the delivery poll in progress has been in one step (0 between polls); a stuck loop grows it (docs/operations.md "When delivery stops").',
      },
      fromEngine((e) => e.loop.stepForMs / 1000),
    );
    sampled(
      'gauge',
      { name: 'herald_engine_poll_behind_seconds', help: 'Since the delivery poll last kept up: claimed rows, found none it could take now, or had every slot busy.' },
      fromEngine((e) => e.loop.sinceKeptUpMs / 1000),
    );
    sampled(
      'gauge',
      { name: 'herald_engine_stalled', help: 'Whether due deliveries wait past the stall threshold while this engine claims none (1/0).' },
      fromEngine((e) => (e.loop.stalled ? 1 : 0)),
    );
    sampled(
      'gauge',
      { name: 'herald_engine_loop_stuck', help: 'Whether one step of the delivery poll has lasted past the stuck threshold (1/0); /healthz answers 503 meanwhile.' },
      fromEngine((e) => (e.loop.stuck ? 1 : 0)),
    );
    sampled(
      'counter',
      { name: 'herald_retention_pruned_events_total', help: 'Settled events (with their rows and attempts) removed by retention runs of this process.' },
      fromEngine((e) => e.prunedEvents ?? 0),
    );
    sampled(
      'counter',
      {
        name: 'herald_subscriber_attempts_total',
        help: 'Delivery attempts finished by this process per subscriber, by outcome (success rate = delivered / all).',
        labelNames: ['org', 'subscriber', 'outcome'],
      },
      ({ engine }) =>
        (engine?.bySubscriber ?? []).flatMap(({ orgId, subscriber, delivered, failed, retried }) => [
          { labels: { org: orgId, subscriber, outcome: 'delivered' }, value: delivered },
          { labels: { org: orgId, subscriber, outcome: 'failed' }, value: failed },
          { labels: { org: orgId, subscriber, outcome: 'retried' }, value: retried },
        ]),
    );
    this.firstAttemptLatency = new HistogramSnapshot(
      this.registry,
      'herald_delivery_first_attempt_latency_seconds',
      "From publish to the end of a delivery's first attempt, this process.",
    );
    sampled(
      'gauge',
      { name: 'herald_deliveries', help: 'Delivery rows in the database by status (cluster-wide).', labelNames: ['status'] },
      ({ queue }) => Object.entries(queue.byStatus).map(([status, value]) => ({ labels: { status }, value })),
    );
    sampled('gauge', { name: 'herald_delivery_queue_depth', help: 'Due PENDING delivery rows not yet picked up (cluster-wide).' }, ({ queue }) => [{ value: queue.due }]);
    sampled('gauge', { name: 'herald_delivery_queue_oldest_due_age_seconds', help: 'Age of the oldest due PENDING delivery row.' }, ({ queue }) => [
      { value: queue.oldestDueAgeSeconds },
    ]);
    sampled(
      'gauge',
      { name: 'herald_subscribers_unhealthy', help: 'Subscribers whose endpoint is failing, or open (deliveries held, probed), cluster-wide.', labelNames: ['state'] },
      ({ queue }) => Object.entries(queue.unhealthySubscribers).map(([state, value]) => ({ labels: { state }, value })),
    );
  }

  /** Adds the hooks that count every request (route template, not raw URL, to bound cardinality). */
  instrument(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      this.requestDuration.observe({ route }, reply.elapsedTime / 1000);
    });
  }

  /** Reads the engine (once, so every series shows the same moment) and MongoDB, then writes the exposition. */
  async render(sources: MetricSources): Promise<string> {
    const engine = sources.engine();
    const now = new Date();
    const [queue, durations] = await Promise.all([sources.queue(), sources.attemptDurationsBetween(this.attemptsObservedUntil, now)]);
    for (const seconds of durations) this.attemptDuration.observe(seconds);
    this.attemptsObservedUntil = now;
    const reading: Reading = { engine, queue };
    for (const series of this.sampled) series.update(reading);
    this.firstAttemptLatency.set(engine?.firstAttemptLatency);
    return this.registry.metrics();
  }
}
