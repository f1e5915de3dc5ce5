// The host's /metrics over HTTP with figures chosen by the test (the real host's labels are route
// templates, handles and fixed words, which never need escaping): label values escaped as the
// Prometheus text format requires, the engine's pre-counted histogram as it stands, and no engine
// samples in a process that runs no engine.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { HostMetrics, type EngineFigures, type MetricSources } from '../src/metrics/host-metrics.js';
import type { QueueStats } from '../src/metrics/queue-stats.js';
import { opsRoutes } from '../src/routes/ops.js';

const queue: QueueStats = {
  byStatus: { PENDING: 1, IN_FLIGHT: 0, DELIVERED: 2, FAILED: 0 },
  due: 1,
  oldestDueAgeSeconds: 0.5,
  unhealthySubscribers: { failing: 0, open: 0 },
};

const engine: EngineFigures = {
  running: true,
  inFlight: 0,
  delivered: 1,
  failed: 0,
  retried: 0,
  bySubscriber: [{ orgId: 'default', subscriber: 'line\nquote"backslash\\end', delivered: 1, failed: 0, retried: 0 }],
  firstAttemptLatency: { bounds: [0.01, 0.1], cumulative: [0, 1], sum: 0.05, count: 2 },
  prunedEvents: 0,
  loop: { stepForMs: 0, sinceKeptUpMs: 0, stuck: false, stalled: false },
};

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function scrape(figures: EngineFigures | undefined): Promise<Response> {
  const metrics = new HostMetrics();
  const sources: MetricSources = { engine: () => figures, queue: async () => queue, attemptDurationsBetween: async () => [] };
  app = Fastify();
  metrics.instrument(app);
  await app.register(opsRoutes, { readiness: async () => ({ mongo: true, engine: 'running' }), engineEnabled: figures !== undefined, metrics, metricSources: sources });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return fetch(`${url}/metrics`);
}

it('escapes a line feed, a double quote and a backslash in label values, and shows the first-attempt histogram as counted', async () => {
  const response = await scrape(engine);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const lines = (await response.text()).split('\n');
  expect(lines).toContain('herald_subscriber_attempts_total{org="default",subscriber="line\\nquote\\"backslash\\\\end",outcome="delivered"} 1');
  expect(lines.filter((line) => line.startsWith('herald_delivery_first_attempt_latency_seconds'))).toEqual([
    'herald_delivery_first_attempt_latency_seconds_bucket{le="0.01"} 0',
    'herald_delivery_first_attempt_latency_seconds_bucket{le="0.1"} 1',
    'herald_delivery_first_attempt_latency_seconds_bucket{le="+Inf"} 2',
    'herald_delivery_first_attempt_latency_seconds_sum 0.05',
    'herald_delivery_first_attempt_latency_seconds_count 2',
  ]);
});

it('a process without an engine shows the engine series without samples, and the queue series', async () => {
  const text = await (await scrape(undefined)).text();
  expect(text).toMatch(/^herald_engine_running 0$/m);
  for (const name of ['herald_deliveries_in_flight', 'herald_engine_loop_stuck', 'herald_retention_pruned_events_total', 'herald_delivery_first_attempt_latency_seconds']) {
    expect(text).toContain(`# TYPE ${name} `);
    expect(text).not.toMatch(new RegExp(`^${name}(_[a-z]+)?[{ ]`, 'm'));
  }
  expect(text).toMatch(/^herald_delivery_queue_depth 1$/m);
  expect(text).toMatch(/^herald_deliveries\{status="DELIVERED"\} 2$/m);
});
