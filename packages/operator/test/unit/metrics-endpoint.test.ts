// The operator's /metrics over HTTP: the exposition's content type, label values escaped as the
// Prometheus text format requires (backslash, double quote and line feed), and a gauge that a new
// controller registers again reads from the new one.
import { afterEach, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { startOpsServer } from '../../src/http/ops-server.js';
import { Metrics } from '../../src/metrics.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function scrape(metrics: Metrics): Promise<Response> {
  const ops = await startOpsServer('127.0.0.1', 0, { healthy: () => true, ready: () => true, metrics });
  server = ops.server;
  return fetch(`http://127.0.0.1:${ops.port}/metrics`);
}

it('escapes a line feed, a double quote and a backslash in label values', async () => {
  const metrics = new Metrics();
  metrics.increment('herald_operator_events_total', 'Kubernetes Events recorded', { reason: 'line\nquote"backslash\\end' });
  const response = await scrape(metrics);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const lines = (await response.text()).split('\n');
  expect(lines).toContain('herald_operator_events_total{reason="line\\nquote\\"backslash\\\\end"} 1');
});

it('a gauge registered again reads from its latest source', async () => {
  const metrics = new Metrics();
  metrics.gauge('herald_operator_queue_depth', 'Keys waiting in the work queue', () => 3);
  metrics.gauge('herald_operator_queue_depth', 'Keys waiting in the work queue', () => 5);
  const text = await (await scrape(metrics)).text();
  expect(text.match(/^herald_operator_queue_depth .*$/gm)).toEqual(['herald_operator_queue_depth 5']);
});
