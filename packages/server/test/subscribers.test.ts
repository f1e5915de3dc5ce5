// Spec section B over real HTTP: every success shape and every 4xx row of the status table
// (the 500 rows are in internal-errors.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
let t: TestHost;

interface Subscriber {
  id: string;
  orgId: string;
  displayName: string;
  targetUrl: string;
  enabled: boolean;
  events: string[];
  timeoutMs: number;
  hasSecret: boolean;
  createdBy: string;
  updatedBy?: string;
  createdAt: string;
  updatedAt: string;
}
interface ErrorBody {
  status: string;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}

beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

describe('create', () => {
  it('201 with the full resource, a Location and no secret', async () => {
    const response = await t.api.post<Subscriber>(BASE, {
      id: 'orders-hook',
      displayName: 'Orders',
      targetUrl: 'https://example.com/hooks/orders',
      secret: 'a-very-secret-value-123',
      events: ['apikey.*', 'subscription.created'],
      timeoutMs: 2500,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${BASE}/orders-hook`);
    expect(response.body).toMatchObject({
      id: 'orders-hook',
      orgId: 'default',
      displayName: 'Orders',
      targetUrl: 'https://example.com/hooks/orders',
      enabled: true,
      events: ['apikey.*', 'subscription.created'],
      timeoutMs: 2500,
      hasSecret: true,
    });
    expect(response.body.createdBy).toMatch(/^tok_/);
    expect(response.body.updatedBy).toBe(response.body.createdBy);
    expect(Date.parse(response.body.createdAt)).not.toBeNaN();
    expect(response.text).not.toContain('a-very-secret-value-123');
    expect(response.text).not.toContain('"secret"');
  });

  it('generates a lowercase UUID handle when id is omitted', async () => {
    const response = await t.api.post<Subscriber>(BASE, { displayName: 'No id', targetUrl: 'https://example.com/a' });
    expect(response.status).toBe(201);
    expect(response.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.headers.get('location')).toBe(`${BASE}/${response.body.id}`);
  });

  it('400 MISSING_REQUIRED_PARAMETER with field details when required fields are missing', async () => {
    const response = await t.api.post<ErrorBody>(BASE, { id: 'incomplete' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 'error', code: 'MISSING_REQUIRED_PARAMETER' });
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'displayName', message: 'is required' },
        { field: 'targetUrl', message: 'is required' },
      ]),
    );
  });

  it('400 when the body is missing altogether', async () => {
    const response = await t.api.post<ErrorBody>(BASE);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
  });

  it('409 CONFLICT when the handle is taken', async () => {
    const body = { id: 'dup-hook', displayName: 'Dup', targetUrl: 'https://example.com/dup' };
    expect((await t.api.post(BASE, body)).status).toBe(201);
    const again = await t.api.post<ErrorBody>(BASE, body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 'error', code: 'CONFLICT' });
    expect(typeof again.body.message).toBe('string');
  });
});

describe('list', () => {
  it('200 with list, count and pagination; updatedBy omitted on items; secrets never present', async () => {
    const response = await t.api.get<{ list: Subscriber[]; count: number; pagination: { total: number; limit: number; offset: number } }>(BASE);
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(response.body.list.length);
    expect(response.body.pagination).toEqual({ total: response.body.list.length, limit: 20, offset: 0 });
    expect(response.body.list.length).toBeGreaterThanOrEqual(3);
    for (const item of response.body.list) {
      expect(item).not.toHaveProperty('updatedBy');
      expect(item).not.toHaveProperty('secret');
      expect(item.createdBy).toBeTypeOf('string');
    }
    expect(response.text).not.toContain('a-very-secret-value-123');
  });

  it('honours limit and offset in order of creation', async () => {
    const all = await t.api.get<{ list: Subscriber[] }>(BASE);
    const page = await t.api.get<{ list: Subscriber[]; count: number; pagination: { total: number; limit: number; offset: number } }>(
      `${BASE}?limit=1&offset=1`,
    );
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(1);
    expect(page.body.pagination).toEqual({ total: all.body.list.length, limit: 1, offset: 1 });
    expect(page.body.list[0]!.id).toBe(all.body.list[1]!.id);
  });
});

describe('get', () => {
  it('200 with the resource including updatedBy', async () => {
    const response = await t.api.get<Subscriber>(`${BASE}/orders-hook`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe('orders-hook');
    expect(response.body.updatedBy).toMatch(/^tok_/);
    expect(response.body.hasSecret).toBe(true);
  });

  it('404 ORG_NOT_FOUND for an unknown handle', async () => {
    const response = await t.api.get<ErrorBody>(`${BASE}/no-such-hook`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 'error', code: 'ORG_NOT_FOUND' });
  });
});

describe('update', () => {
  it('200; only supplied fields change', async () => {
    const before = (await t.api.get<Subscriber>(`${BASE}/orders-hook`)).body;
    const response = await t.api.put<Subscriber>(`${BASE}/orders-hook`, { displayName: 'Orders v2', enabled: false });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      displayName: 'Orders v2',
      enabled: false,
      targetUrl: before.targetUrl,
      events: before.events,
      timeoutMs: before.timeoutMs,
      hasSecret: true,
    });
    expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
  });

  it('200 without a body changes nothing', async () => {
    const before = (await t.api.get<Subscriber>(`${BASE}/orders-hook`)).body;
    const response = await t.api.put<Subscriber>(`${BASE}/orders-hook`);
    expect(response.status).toBe(200);
    expect(response.body.displayName).toBe(before.displayName);
    expect(response.body.enabled).toBe(before.enabled);
  });

  it('400 for a JSON null body: it is a body, and not an object (Schemathesis: ST201)', async () => {
    const response = await t.api.put(`${BASE}/orders-hook`, undefined, { rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'body' }] });
  });

  it('secret "" removes the secret', async () => {
    const response = await t.api.put<Subscriber>(`${BASE}/dup-hook`, { secret: 'another-secret-value-456' });
    expect(response.body.hasSecret).toBe(true);
    const removed = await t.api.put<Subscriber>(`${BASE}/dup-hook`, { secret: '' });
    expect(removed.status).toBe(200);
    expect(removed.body.hasSecret).toBe(false);
  });

  it('400 with field details for invalid values', async () => {
    const response = await t.api.put<ErrorBody>(`${BASE}/orders-hook`, { timeoutMs: 5, targetUrl: 'not a url' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    const fields = response.body.errors!.map((error) => error.field);
    expect(fields).toEqual(expect.arrayContaining(['timeoutMs', 'targetUrl']));
  });

  it('404 for an unknown handle', async () => {
    const response = await t.api.put<ErrorBody>(`${BASE}/missing-hook`, { displayName: 'x' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('ORG_NOT_FOUND');
  });

  it('409 when renaming onto a taken handle; a free handle renames', async () => {
    const conflict = await t.api.put<ErrorBody>(`${BASE}/dup-hook`, { id: 'orders-hook' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');
    const renamed = await t.api.put<Subscriber>(`${BASE}/dup-hook`, { id: 'dup-hook-renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.id).toBe('dup-hook-renamed');
    expect((await t.api.get(`${BASE}/dup-hook`)).status).toBe(404);
  });
});

describe('deliveries', () => {
  it('200 with an empty list for a subscriber that got nothing yet', async () => {
    const response = await t.api.get<{ list: unknown[] }>(`${BASE}/orders-hook/deliveries`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ list: [] });
  });

  it('404 for an unknown handle', async () => {
    const response = await t.api.get<ErrorBody>(`${BASE}/missing-hook/deliveries`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('ORG_NOT_FOUND');
  });
});

describe('delete', () => {
  it('204 with no body, then the subscriber is gone', async () => {
    const response = await t.api.delete(`${BASE}/dup-hook-renamed`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await t.api.get(`${BASE}/dup-hook-renamed`)).status).toBe(404);
  });

  it('404 for an unknown handle', async () => {
    const response = await t.api.delete<ErrorBody>(`${BASE}/dup-hook-renamed`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 'error', code: 'ORG_NOT_FOUND' });
  });
});

it('validated every response above against the served OpenAPI document', () => {
  expect(t.api.validatedResponses).toBeGreaterThan(20);
});

describe('payload filter', () => {
  const filter = { 'data.amount': { $gte: 100 }, $or: [{ 'data.currency': 'EUR' }, { aggregateId: { $startsWith: 'vip_' } }] };

  it('is stored as given, returned on get and list, and removed with null', async () => {
    const created = await t.api.post<Subscriber & { filter?: unknown }>(BASE, { id: 'filtered', displayName: 'F', targetUrl: 'https://example.com/f', filter });
    expect(created.status).toBe(201);
    expect(created.body.filter).toEqual(filter);
    expect((await t.api.get<Subscriber & { filter?: unknown }>(`${BASE}/filtered`)).body.filter).toEqual(filter);
    const list = await t.api.get<{ list: Array<Subscriber & { filter?: unknown }> }>(`${BASE}?limit=100`);
    expect(list.body.list.find((item) => item.id === 'filtered')?.filter).toEqual(filter);
    const cleared = await t.api.put<Subscriber & { filter?: unknown }>(`${BASE}/filtered`, { filter: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('filter');
  });

  it('400 naming the path inside the filter for unknown operators and wrong operand types', async () => {
    const response = await t.api.post<ErrorBody>(BASE, {
      displayName: 'F',
      targetUrl: 'https://example.com/f',
      filter: { 'data.amount': { $gt: true }, $or: [{ 'data.x': { $regex: '^a' } }], payload: 1 },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(response.body.errors?.map((issue) => issue.field)).toEqual(['filter.data.amount.$gt', 'filter.$or[0].data.x.$regex', 'filter.payload']);
  });

  it('400 for a filter that is not an object, too deep or too large', async () => {
    let deep: Record<string, unknown> = { type: 'a.b' };
    for (let level = 0; level < 8; level++) deep = { $not: deep };
    for (const bad of ['amount > 5', deep, { 'data.a': { $in: Array.from({ length: 600 }, (_, index) => `v${index}`) } }]) {
      const response = await t.api.post<ErrorBody>(BASE, { displayName: 'F', targetUrl: 'https://example.com/f', filter: bad });
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.field).toBe('filter');
    }
  });
});

describe('per-key ordering', () => {
  it('ordering "aggregate" is stored, shown on get and list, and "none" removes it', async () => {
    const created = await t.api.post<Subscriber & { ordering?: string }>(BASE, { id: 'ordered', displayName: 'O', targetUrl: 'https://example.com/o', ordering: 'aggregate' });
    expect(created.status).toBe(201);
    expect(created.body.ordering).toBe('aggregate');
    expect((await t.api.get<Subscriber & { ordering?: string }>(`${BASE}/ordered`)).body.ordering).toBe('aggregate');
    const list = await t.api.get<{ list: Array<Subscriber & { ordering?: string }> }>(`${BASE}?limit=100`);
    expect(list.body.list.find((item) => item.id === 'ordered')?.ordering).toBe('aggregate');
    const off = await t.api.put<Subscriber & { ordering?: string }>(`${BASE}/ordered`, { ordering: 'none' });
    expect(off.status).toBe(200);
    expect(off.body).not.toHaveProperty('ordering');
    const plain = await t.api.post<Subscriber & { ordering?: string }>(BASE, { displayName: 'P', targetUrl: 'https://example.com/p', ordering: 'none' });
    expect(plain.body).not.toHaveProperty('ordering');
  });

  it('400 naming the field for any other value', async () => {
    for (const ordering of ['fifo', true, null, { by: 'aggregate' }]) {
      const response = await t.api.post<ErrorBody>(BASE, { displayName: 'O', targetUrl: 'https://example.com/o', ordering });
      expect(response.status, JSON.stringify(ordering)).toBe(400);
      expect(response.body.errors?.map((issue) => issue.field)).toContain('ordering');
    }
  });
});

describe('filter preview', () => {
  it('200 with the recent events and whether each matches; 400 naming the path', async () => {
    await t.api.post('/api/v0.9/webhook-events', { eventType: 'preview.seen', aggregateId: 'a1', data: { amount: 7 } });
    const response = await t.api.post<{ list: Array<{ aggregateId: string; matches: boolean }>; matching: number }>(`${BASE}/filter-preview`, {
      filter: { 'data.amount': { $lt: 10 } },
      events: ['preview.*'],
    });
    expect(response.status).toBe(200);
    expect(response.body.list[0]).toMatchObject({ aggregateId: 'a1', matches: true });
    const bad = await t.api.post<ErrorBody>(`${BASE}/filter-preview`, { filter: { 'data.amount': { $lt: [1] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((issue) => issue.field)).toEqual(['filter.data.amount.$lt']);
  });
});

describe('target URL spellings', () => {
  it('an internationalized host is stored in punycode and one trailing dot is dropped; empty labels → 400', async () => {
    const created = await t.api.post<{ targetUrl: string }>(BASE, { id: 'idn-host', displayName: 'IDN', targetUrl: 'https://bücher.example./hooks' });
    expect(created.status).toBe(201);
    expect(created.body.targetUrl).toBe('https://xn--bcher-kva.example/hooks');
    expect((await t.api.request('DELETE', `${BASE}/idn-host`)).status).toBe(204);
    for (const targetUrl of ['https://example.com../x', 'https://a..b/x']) {
      const refused = await t.api.post<{ code: string; errors: Array<{ field: string; message: string }> }>(BASE, { displayName: 'Dots', targetUrl });
      expect(refused.status, targetUrl).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'targetUrl', message: 'must not have an empty label in its host (a..b)' }]);
    }
  });
});
