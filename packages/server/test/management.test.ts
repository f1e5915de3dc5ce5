// Management API /api/v1: the single org and CRUD of projects with the same error shape and codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const PROJECTS = '/api/v1/orgs/default/projects';
let t: TestHost;

interface Project {
  id: string;
  orgId: string;
  displayName: string;
  description?: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

beforeAll(async () => {
  t = await startTestHost({ overrides: { org: 'acme' } });
});
afterAll(async () => {
  await t?.close();
});

describe('orgs', () => {
  it('GET /orgs lists exactly the instance org', async () => {
    const response = await t.api.get('/api/v1/orgs');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ list: [{ id: 'acme', displayName: 'acme' }], count: 1, pagination: { total: 1, limit: 20, offset: 0 } });
  });

  it('GET /orgs/{org} answers for the instance org and 403 for any other', async () => {
    expect((await t.api.get('/api/v1/orgs/acme')).body).toEqual({ id: 'acme', displayName: 'acme' });
    const other = await t.api.get('/api/v1/orgs/default');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
  });
});

describe('projects', () => {
  const base = PROJECTS.replace('default', 'acme');

  it('create → 201 with Location; get; list; update only supplied fields; delete → 204', async () => {
    const created = await t.api.post<Project>(base, { id: 'web', displayName: 'Web', description: 'The web app' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/web`);
    expect(created.body).toMatchObject({ id: 'web', orgId: 'acme', displayName: 'Web', description: 'The web app' });
    expect(created.body.createdBy).toMatch(/^tok_/);

    expect((await t.api.get<Project>(`${base}/web`)).body.displayName).toBe('Web');
    const generated = await t.api.post<Project>(base, { displayName: 'Generated id' });
    expect(generated.body.id).toMatch(/^[0-9a-f-]{36}$/);

    const list = await t.api.get<{ list: Project[]; count: number; pagination: { total: number } }>(`${base}?limit=1`);
    expect(list.body.count).toBe(1);
    expect(list.body.pagination.total).toBe(2);
    expect(list.body.list[0]!.id).toBe('web');

    const updated = await t.api.put<Project>(`${base}/web`, { displayName: 'Web 2' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ displayName: 'Web 2', description: 'The web app' });
    const cleared = await t.api.put<Project>(`${base}/web`, { description: '' });
    expect(cleared.body).not.toHaveProperty('description');

    const deleted = await t.api.delete(`${base}/web`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await t.api.get(`${base}/web`)).status).toBe(404);
  });

  it('409 on a duplicate id, 404 on unknown ids, 400 with fields on bad input', async () => {
    expect((await t.api.post(base, { id: 'dup', displayName: 'D' })).status).toBe(201);
    const duplicate = await t.api.post<{ code: string }>(base, { id: 'dup', displayName: 'D' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe('CONFLICT');

    for (const [method, json] of [['GET', undefined], ['PUT', { displayName: 'x' }], ['DELETE', undefined]] as const) {
      const response = await t.api.request<{ code: string }>(method, `${base}/missing`, { json });
      expect(response.status, method).toBe(404);
      expect(response.body.code).toBe('ORG_NOT_FOUND');
    }

    const bad = await t.api.post<{ code: string; errors: Array<{ field: string }> }>(base, { id: 'has space', displayName: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error) => error.field)).toEqual(expect.arrayContaining(['id', 'displayName', 'extra']));
    expect((await t.api.get(`${base}?offset=-1`)).status).toBe(400);
  });
});
