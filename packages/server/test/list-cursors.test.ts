// Keyset pagination over HTTP: `cursor` / `nextCursor` on the events list and a subscriber's
// deliveries, beside limit/offset; every bad cursor is a 400 in the documented error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/auth/scopes.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const EVENTS = '/api/v0.9/webhook-events';
const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';
const PUBLISHED = 7;
let t: TestHost;

interface EventPage {
  list: Array<{ eventId: string; status: string }>;
  count: number;
  pagination: { total: number; limit: number; offset: number };
  nextCursor?: string;
}
interface ErrorBody {
  status: string;
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}

beforeAll(async () => {
  t = await startTestHost({ mode: 'api-only' });
  const subscriber = { id: 'paged-hook', displayName: 'Paged', targetUrl: 'http://127.0.0.1:9/never', events: ['doc.*'] };
  expect((await t.api.post(SUBSCRIBERS, subscriber)).status).toBe(201);
  for (let index = 0; index < PUBLISHED; index++) {
    const body = { eventType: 'doc.saved', aggregateId: `d${index}`, data: { index }, occurredAt: new Date(Date.UTC(2031, 0, 1, 0, 0, index % 3)).toISOString() };
    expect((await t.api.post(EVENTS, body)).status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

function expectCursorError(response: { status: number; body: ErrorBody }, field: string, message?: RegExp) {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ status: 'error', code: 'MISSING_REQUIRED_PARAMETER' });
  expect(response.body.errors?.length).toBeGreaterThan(0);
  for (const error of response.body.errors ?? []) expect(error).toEqual({ field, message: message ? expect.stringMatching(message) : expect.any(String) });
}

describe('GET /webhook-events with a cursor', () => {
  it('follows nextCursor through every event once, as offsets list them', async () => {
    const byOffset = (await t.api.get<EventPage>(`${EVENTS}?limit=100`)).body.list.map((event) => event.eventId);
    expect(byOffset).toHaveLength(PUBLISHED);
    const walked: string[] = [];
    const offsets: number[] = [];
    let next: string | undefined;
    do {
      const response = await t.api.get<EventPage>(`${EVENTS}?limit=3${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.body.pagination.total).toBe(PUBLISHED);
      walked.push(...response.body.list.map((event) => event.eventId));
      offsets.push(response.body.pagination.offset);
      next = response.body.nextCursor;
    } while (next);
    expect(walked).toEqual(byOffset);
    expect(offsets).toEqual([0, 3, 6]);
  });

  it('limit/offset answer as before, with a nextCursor while more follow', async () => {
    const page = await t.api.get<EventPage>(`${EVENTS}?limit=2&offset=4`);
    expect(page.body.pagination).toEqual({ total: PUBLISHED, limit: 2, offset: 4 });
    expect(page.body.nextCursor).toEqual(expect.any(String));
    expect((await t.api.get<EventPage>(`${EVENTS}?limit=2&offset=6`)).body.nextCursor).toBeUndefined();
  });

  it('a cursor with an offset → 400 naming offset', async () => {
    const { nextCursor } = (await t.api.get<EventPage>(`${EVENTS}?limit=2`)).body;
    expectCursorError(await t.api.get<ErrorBody>(`${EVENTS}?offset=0&cursor=${nextCursor}`), 'offset', /cannot be combined with cursor/);
  });

  it.each([
    ['garbage', 'cursor=garbage'],
    ['empty', 'cursor='],
    ['oversize', `cursor=${'A'.repeat(600)}.${'B'.repeat(22)}`],
    ['given twice', 'cursor=a.b&cursor=c.d'],
    ['well formed, never issued', `cursor=${Buffer.from('[1,"events","",[0,"x"],0]').toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`],
  ])('a %s cursor → 400 naming cursor', async (_name, query) => {
    expectCursorError(await t.api.get<ErrorBody>(`${EVENTS}?${query}`), 'cursor');
  });

  it('an altered cursor, or one of another status filter → 400 saying so', async () => {
    const { nextCursor } = (await t.api.get<EventPage>(`${EVENTS}?limit=2`)).body;
    const [body, mac] = nextCursor!.split('.') as [string, string];
    const altered = `${body.slice(0, 4)}${body[4] === 'x' ? 'y' : 'x'}${body.slice(5)}.${mac}`;
    expectCursorError(await t.api.get<ErrorBody>(`${EVENTS}?cursor=${altered}`), 'cursor', /altered/);
    expectCursorError(await t.api.get<ErrorBody>(`${EVENTS}?status=FAILED&cursor=${nextCursor}`), 'cursor', /another filter/);
  });

  it('401 without a token, 403 without dp:event:read, before the cursor is read', async () => {
    const { nextCursor } = (await t.api.get<EventPage>(`${EVENTS}?limit=2`)).body;
    expect((await t.api.request('GET', `${EVENTS}?cursor=${nextCursor}`, { token: undefined })).status).toBe(401);
    const { token } = await t.createToken([SCOPES.subscriberManage]);
    expect((await t.api.get<ErrorBody>(`${EVENTS}?cursor=${nextCursor}`, { token })).body.code).toBe('FORBIDDEN');
  });
});

describe('GET /webhook-subscribers/{id}/deliveries with a cursor', () => {
  const path = `${SUBSCRIBERS}/paged-hook/deliveries`;

  it('one page of the 7 rows, no nextCursor; unknown parameters are still refused', async () => {
    const response = await t.api.get<{ list: unknown[]; nextCursor?: string }>(path);
    expect(response.status).toBe(200);
    expect(response.body.list).toHaveLength(PUBLISHED);
    expect(response.body.nextCursor).toBeUndefined();
    expectCursorError(await t.api.get<ErrorBody>(`${path}?limit=5`), 'limit');
  });

  it("another list's cursor, a bad one or an oversize one → 400 naming cursor", async () => {
    const { nextCursor } = (await t.api.get<EventPage>(`${EVENTS}?limit=2`)).body;
    expectCursorError(await t.api.get<ErrorBody>(`${path}?cursor=${nextCursor}`), 'cursor', /another list/);
    expectCursorError(await t.api.get<ErrorBody>(`${path}?cursor=nope`), 'cursor');
    expectCursorError(await t.api.get<ErrorBody>(`${path}?cursor=${'A'.repeat(513)}`), 'cursor');
  });

  it('404 for an unknown subscriber, 403 without dp:subscriber:read', async () => {
    expect((await t.api.get<ErrorBody>(`${SUBSCRIBERS}/ghost/deliveries?cursor=a.b`)).status).toBe(404);
    const { token } = await t.createToken([SCOPES.eventRead]);
    expect((await t.api.get<ErrorBody>(`${path}?cursor=a.b`, { token })).status).toBe(403);
  });
});
