// Health, readiness, Prometheus metrics and the two OpenAPI documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

describe('health', () => {
  it('/healthz is 200 without credentials', async () => {
    const response = await fetch(`${t.host.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 200 with MongoDB reachable and the engine running', async () => {
    const response = await fetch(`${t.host.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', mongo: true, engine: 'running' });
  });

  it('/readyz reports the engine as disabled on an API-only host, and 503 once stopped', async () => {
    const apiOnly = await startTestHost({ mode: 'api-only' });
    try {
      const response = await fetch(`${apiOnly.host.url}/readyz`);
      expect(await response.json()).toEqual({ status: 'ready', mongo: true, engine: 'disabled' });
    } finally {
      await apiOnly.close();
    }
    const engineOnly = await startTestHost({ mode: 'engine-only' });
    try {
      expect((await fetch(`${engineOnly.host.url}/readyz`)).status).toBe(200);
      // --engine-only serves no API.
      expect((await fetch(`${engineOnly.host.url}/api/v0.9/webhook-subscribers`)).status).toBe(404);
      await engineOnly.host.herald.stop();
      const stopped = await fetch(`${engineOnly.host.url}/readyz`);
      expect(stopped.status).toBe(503);
      expect(await stopped.json()).toMatchObject({ status: 'not ready', engine: 'stopped' });
    } finally {
      await engineOnly.close();
    }
  });

  it('a port already in use fails the start cleanly', async () => {
    const port = Number(new URL(t.host.url).port);
    await expect(startTestHost({ overrides: { port } })).rejects.toThrow(/EADDRINUSE/);
  });

  it('every response carries an x-request-id', async () => {
    const first = await fetch(`${t.host.url}/healthz`);
    const second = await fetch(`${t.host.url}/healthz`);
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });
});

describe('metrics', () => {
  it('Prometheus text with request, delivery and queue series', async () => {
    await t.api.get('/api/v0.9/webhook-subscribers');
    await t.api.get('/api/v0.9/webhook-subscribers/missing');
    const response = await fetch(`${t.host.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('# TYPE herald_http_requests_total counter');
    expect(text).toMatch(/herald_http_requests_total\{method="GET",route="\/api\/v0\.9\/webhook-subscribers",status="200"\} [1-9]/);
    expect(text).toMatch(/herald_http_requests_total\{method="GET",route="\/api\/v0\.9\/webhook-subscribers\/:subscriberId",status="404"\} 1/);
    expect(text).toContain('herald_http_request_duration_seconds_bucket{le="0.025",route="/api/v0.9/webhook-subscribers"}');
    expect(text).toContain('herald_engine_running 1');
    expect(text).toMatch(/herald_deliveries_in_flight \d+/);
    expect(text).toMatch(/herald_delivery_attempts_total\{outcome="failed"\} \d+/);
    expect(text).toContain('# TYPE herald_retention_pruned_events_total counter');
    expect(text).toMatch(/herald_retention_pruned_events_total \d+/);
    expect(text).toMatch(/herald_deliveries\{status="PENDING"\} \d+/);
    expect(text).toMatch(/herald_delivery_queue_depth \d+/);
    expect(text).toMatch(/herald_delivery_queue_oldest_due_age_seconds [\d.]+/);
    expect(text).toMatch(/herald_subscribers_unhealthy\{state="open"\} \d+/);
  });
});

describe('OpenAPI', () => {
  it.each([
    ['/api/v0.9/openapi.json', ['/api/v0.9/webhook-subscribers', '/api/v0.9/webhook-subscribers/filter-preview', '/api/v0.9/webhook-subscribers/{subscriberId}', '/api/v0.9/webhook-subscribers/{subscriberId}/deliveries', '/api/v0.9/webhook-subscribers/{subscriberId}/recover', '/api/v0.9/webhook-subscribers/{subscriberId}/recoveries/{recoveryId}', '/api/v0.9/webhook-events', '/api/v0.9/webhook-events/batch', '/api/v0.9/webhook-events/{eventId}', '/api/v0.9/webhook-events/{eventId}/redeliver', '/api/v0.9/webhook-events/{eventId}/deliveries/{deliveryId}/retry', '/api/v0.9/webhook-event-types', '/api/v0.9/webhook-event-types/{type}', '/api/v0.9/webhook-event-types/{type}/test', '/api/v0.9/webhook-retention', '/api/v0.9/asyncapi.json', '/api/v0.9/portal-links', '/api/v0.9/portal-sessions']],
    ['/api/v1/openapi.json', ['/api/v1/me', '/api/v1/orgs', '/api/v1/orgs/{org}', '/api/v1/orgs/{org}/projects', '/api/v1/orgs/{org}/projects/{project}']],
  ])('%s is an OpenAPI 3.1 document of exactly its API, served without credentials', async (path, expectedPaths) => {
    const response = await fetch(`${t.host.url}${path}`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown>; security?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual([...expectedPaths].sort());
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    for (const operation of operations) {
      expect(operation.operationId).toBeTypeOf('string');
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });

  it('documents the spec success codes and the Location header', async () => {
    type Responses = Record<string, { headers?: Record<string, { schema: unknown }>; content?: unknown }>;
    const document = (await fetch(`${t.host.url}/api/v0.9/openapi.json`).then((response) => response.json())) as {
      paths: Record<string, Record<string, { responses: Responses }>>;
    };
    const subscribers = document.paths['/api/v0.9/webhook-subscribers']!;
    // A URI reference: just the path when no public URL is configured.
    expect(subscribers.post!.responses['201']!.headers!.Location!.schema).toEqual({ type: 'string', format: 'uri-reference' });
    expect(Object.keys(subscribers.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '500']));
    const single = document.paths['/api/v0.9/webhook-subscribers/{subscriberId}']!;
    expect(single.delete!.responses['204']!.content).toBeUndefined();
    expect(Object.keys(single.put!.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '500']));
    expect(document.paths['/api/v0.9/webhook-events/{eventId}']!.get!.responses['404']).toBeDefined();
  });
});
