// OpenTelemetry, end to end: with an OTLP endpoint in the standard variables, a publish carrying a
// caller's traceparent becomes a span of the caller's trace, and each delivery attempt a child of
// the publish, exported over OTLP/HTTP to a real receiver on loopback; the attempt's traceparent
// reaches the subscriber. Without the variables nothing is set up (tracingRequested).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tracingRequested } from '../src/telemetry/tracing.js';
import { startTestHost, type TestHost } from './support/test-host.js';

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }

let collector: Server;
let receiver: Server;
let t: TestHost;
const spans: OtlpSpan[] = [];
const delivered: IncomingHttpHeaders[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiver = createServer((request, response) => {
    delivered.push(request.headers);
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${await listen(collector)}/v1/traces`;
  process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL = 'http/json';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  t = await startTestHost({ overrides: { deliveryTraceparent: true } });
  const created = await t.api.post('/api/v0.9/webhook-subscribers', { id: 'traced', displayName: 'Traced', targetUrl: `${await listen(receiver)}/hooks`, events: ['order.*'] });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  await Promise.all([collector, receiver].map((server) => new Promise((resolve) => server?.close(resolve))));
});

it('only the standard variables turn tracing on', () => {
  expect(tracingRequested({})).toBe(false);
  expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
});

it('publish → attempt spans in the caller\'s trace, exported over OTLP; the attempt\'s traceparent reaches the receiver', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  const published = await t.api.request<{ eventId: string }>('POST', '/api/v0.9/webhook-events', {
    json: { eventType: 'order.created', aggregateId: 'o1', data: { total: 3 } },
    headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
  });
  expect(published.status).toBe(201);
  await expect.poll(() => spans.filter((span) => span.traceId === traceId).map((span) => span.name).sort(), { timeout: 15_000, interval: 200 }).toEqual(['herald.deliver', 'herald.publish']);
  const publish = spans.find((span) => span.name === 'herald.publish' && span.traceId === traceId)!;
  const attempt = spans.find((span) => span.name === 'herald.deliver' && span.traceId === traceId)!;
  expect(publish.parentSpanId).toBe(callerSpan);
  expect(attempt.parentSpanId).toBe(publish.spanId);
  const attribute = (span: OtlpSpan, key: string) => Object.values(span.attributes.find((entry) => entry.key === key)?.value ?? {})[0];
  expect(attribute(publish, 'herald.event_id')).toBe(published.body.eventId);
  expect(attribute(attempt, 'herald.subscriber_id')).toBe('traced');
  expect(Number(attribute(attempt, 'herald.attempt'))).toBe(1);
  expect(Number(attribute(attempt, 'http.response.status_code'))).toBe(204);
  expect(delivered.at(-1)?.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
});
