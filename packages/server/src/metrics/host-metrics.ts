// The host's Prometheus series: HTTP requests by route and status (recorded by hooks), delivery
// figures from the engine (this process) and the queue (MongoDB, cluster-wide).
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, HistogramSnapshot, renderMetrics, Sampled } from './prometheus.js';
import type { QueueStats } from './queue-stats.js';

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

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class HostMetrics {
  private readonly requests = new Counter('herald_http_requests_total', 'HTTP requests by method, route and status.');
  private readonly requestDuration = new Histogram('herald_http_request_duration_seconds', 'HTTP request duration by route.', HTTP_BUCKETS);
  private readonly attemptDuration = new Histogram(
    'herald_delivery_attempt_duration_seconds',
    'Delivery attempt latency (attempts of every replica, observed by this process since its start).',
    ATTEMPT_BUCKETS,
  );
  private attemptsObservedUntil = new Date();

  /** Adds the hooks that count every request (route template, not raw URL, to bound cardinality). */
  instrument(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      this.requestDuration.observe({ route }, reply.elapsedTime / 1000);
    });
  }

  async render(sources: MetricSources): Promise<string> {
    const engine = sources.engine();
    const now = new Date();
    const [queue, durations] = await Promise.all([sources.queue(), sources.attemptDurationsBetween(this.attemptsObservedUntil, now)]);
    for (const seconds of durations) this.attemptDuration.observe({}, seconds);
    this.attemptsObservedUntil = now;
    const engineSample = (pick: (figures: EngineFigures) => number) => (engine ? [{ value: pick(engine) }] : []);
    return renderMetrics([
      this.requests,
      this.requestDuration,
      new Sampled('herald_engine_running', 'Whether this process runs the delivery engine (1/0).', 'gauge', () => [
        { value: engine?.running ? 1 : 0 },
      ]),
      new Sampled('herald_deliveries_in_flight', 'Delivery attempts in flight in this process.', 'gauge', () => engineSample((e) => e.inFlight)),
      new Sampled('herald_delivery_attempts_total', 'Delivery attempts finished by this process, by outcome.', 'counter', () =>
        engine
          ? [
              { labels: { outcome: 'delivered' }, value: engine.delivered },
              { labels: { outcome: 'failed' }, value: engine.failed },
              { labels: { outcome: 'retried' }, value: engine.retried },
            ]
          : [],
      ),
      this.attemptDuration,
      new Sampled('herald_engine_loop_step_seconds', 'How long the delivery poll in progress has been in one step (0 between polls); a stuck loop grows it (docs/operations.md "When delivery stops").', 'gauge', () =>
        engineSample((e) => e.loop.stepForMs / 1000),
      ),
      new Sampled('herald_engine_poll_behind_seconds', 'Since the delivery poll last kept up: claimed rows, found none it could take now, or had every slot busy.', 'gauge', () =>
        engineSample((e) => e.loop.sinceKeptUpMs / 1000),
      ),
      new Sampled('herald_engine_stalled', 'Whether due deliveries wait past the stall threshold while this engine claims none (1/0).', 'gauge', () =>
        engineSample((e) => (e.loop.stalled ? 1 : 0)),
      ),
      new Sampled('herald_engine_loop_stuck', 'Whether one step of the delivery poll has lasted past the stuck threshold (1/0); /healthz answers 503 meanwhile.', 'gauge', () =>
        engineSample((e) => (e.loop.stuck ? 1 : 0)),
      ),
      new Sampled('herald_retention_pruned_events_total', 'Settled events (with their rows and attempts) removed by retention runs of this process.', 'counter', () =>
        engineSample((e) => e.prunedEvents ?? 0),
      ),
      new Sampled('herald_subscriber_attempts_total', 'Delivery attempts finished by this process per subscriber, by outcome (success rate = delivered / all).', 'counter', () =>
        (engine?.bySubscriber ?? []).flatMap(({ orgId, subscriber, delivered, failed, retried }) => [
          { labels: { org: orgId, subscriber, outcome: 'delivered' }, value: delivered },
          { labels: { org: orgId, subscriber, outcome: 'failed' }, value: failed },
          { labels: { org: orgId, subscriber, outcome: 'retried' }, value: retried },
        ]),
      ),
      new HistogramSnapshot(
        'herald_delivery_first_attempt_latency_seconds',
        'From publish to the end of a delivery\'s first attempt, this process.',
        () => engine?.firstAttemptLatency,
      ),
      new Sampled('herald_deliveries', 'Delivery rows in the database by status (cluster-wide).', 'gauge', () =>
        Object.entries(queue.byStatus).map(([status, value]) => ({ labels: { status }, value })),
      ),
      new Sampled('herald_delivery_queue_depth', 'Due PENDING delivery rows not yet picked up (cluster-wide).', 'gauge', () => [
        { value: queue.due },
      ]),
      new Sampled('herald_delivery_queue_oldest_due_age_seconds', 'Age of the oldest due PENDING delivery row.', 'gauge', () => [
        { value: queue.oldestDueAgeSeconds },
      ]),
      new Sampled('herald_subscribers_unhealthy', 'Subscribers whose endpoint is failing, or open (deliveries held, probed), cluster-wide.', 'gauge', () =>
        Object.entries(queue.unhealthySubscribers).map(([state, value]) => ({ labels: { state }, value })),
      ),
    ]);
  }
}
