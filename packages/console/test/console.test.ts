// The Herald console in a real browser (Debian's chromium via playwright-core) against a real host
// on FerretDB and a real loopback webhook receiver: sign in, manage a subscriber, watch an event get
// delivered, retry it into a failing receiver, rotate the secret, sign out; a read-only token sees
// every action disabled; recover a failed range from the UI, read the event-type catalog and download
// it as AsyncAPI; turn per-key ordering on and off and see each ordered delivery's sequence; the
// events list says how long settled events are kept; a subscriber goes through a named egress proxy
// (a real CONNECT proxy); a subscriber Herald auto-disabled shows why and is enabled again.
// axe-core checks each screen; the main flow is driven from the keyboard.
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHerald } from '@herald/core';
import { startTestHost, type TestHost } from '../../server/test/support/test-host.js';
import { certificateFactory } from '../../../test/support/certificates.js';
import { startConnectProxy, type ConnectProxy } from '../../../test/support/connect-proxy.js';
import { seriousViolations } from './support/axe.js';
import { launchBrowser, screenshots } from './support/browser.js';
import { initialJavaScript } from './support/budget.js';
import { DIST_DIR, ensureConsoleBuilt } from './support/build.js';
import { startReceiver, type TestReceiver } from './support/receiver.js';

const BUDGET_GZIP_BYTES = 150 * 1024;
const TOKEN_KEY = 'herald.console.token';
// A configured catalog entry the event types screen must list beside Herald's own herald.* types.
const INVOICE_PAID = {
  type: 'invoice.paid',
  description: 'An invoice was paid in full.',
  sensitive: ['card'],
  example: { invoiceId: 'inv_1', amount: 1200, card: '4242' },
};

let host: TestHost;
let receiver: TestReceiver;
/** A real CONNECT proxy the host knows as the egress proxy `eu`. */
let egress: ConnectProxy;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  await ensureConsoleBuilt();
  egress = await startConnectProxy();
  [host, receiver, browser] = await Promise.all([
    // The host checks for auto-disable on no clock of its own: the test's worker replica, five days
    // on, is the only one that runs the check (Agenda gives a job to whichever process takes it).
    startTestHost({ overrides: { eventTypes: [INVOICE_PAID], egressProxies: { eu: egress.url }, autoDisableAfterMs: 0 } }),
    startReceiver(),
    launchBrowser(),
  ]);
  origin = host.host.url;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await host?.close();
  await egress?.stop();
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${host.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function publish(eventType: string): Promise<string> {
  const event = await api<{ eventId: string }>('POST', '/api/v0.9/webhook-events', { eventType, aggregateId: 'order-1', data: { total: 42 } });
  return event.eventId;
}

async function expectAccessible(page: Page, screen: string): Promise<void> {
  expect(await seriousViolations(page), `axe on ${screen}`).toEqual([]);
}

const focusedId = (page: Page) => page.evaluate<string | undefined>('document.activeElement?.id');

/** Collects what must never happen on a page: script errors and CSP refusals. */
function watchForProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return problems;
}

describe('Herald console', () => {
  it('is served from the host with strict headers and within its JavaScript budget', async () => {
    const index = await fetch(`${origin}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');

    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${origin}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const bare = await fetch(`${origin}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');
    expect(await (await fetch(`${origin}/console/host.json`)).json()).toEqual({ readOnly: false });
    const missing = await fetch(`${origin}/console/assets/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 'error', code: 'ORG_NOT_FOUND' });

    const report = initialJavaScript(DIST_DIR);
    console.log(
      `console initial JS: ${(report.gzipBytes / 1024).toFixed(1)} KiB gzipped of ${BUDGET_GZIP_BYTES / 1024} KiB budget ` +
        `(${report.files.map((file) => `${file.path} ${(file.bytes / 1024).toFixed(1)} KiB raw`).join(', ')})`,
    );
    expect(report.inlineScripts).toBe(0);
    expect(report.development, 'a production build (no source paths in the bundle)').toBe(false);
    expect(report.files.length).toBeGreaterThan(0);
    expect(report.gzipBytes).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it('signs in, manages a subscriber, follows a delivery, retries it, rotates the secret and signs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'main-flow');
    const problems = watchForProblems(page);
    const writes: { method: string; url: string; body: string | null }[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/') && request.method() !== 'GET') writes.push({ method: request.method(), url: request.url(), body: request.postData() });
    });
    try {
      // Sign in from the keyboard: the token field has focus, Enter submits.
      await page.goto(`${origin}/console/`);
      await page.getByLabel('API token').waitFor();
      expect(await focusedId(page)).toBe('token');
      await expectAccessible(page, 'sign-in');
      await page.keyboard.type(host.adminToken);
      await page.keyboard.press('Enter');
      await page.getByText('Signed in as').waitFor();
      expect(await page.getByTestId('principal-name').textContent()).toBe('bootstrap-admin');
      expect(page.url()).not.toContain(host.adminToken);
      expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toBe(host.adminToken);
      await page.getByRole('heading', { name: 'No subscribers yet' }).waitFor();
      await shots.step('subscribers-empty');
      await expectAccessible(page, 'subscribers (empty)');

      // Create a subscriber with the keyboard; the API's field error shows next to its field first.
      await page.getByRole('button', { name: 'New subscriber' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      // The heading takes focus in an effect after it renders: Tab must start from it, not from the page.
      await page.waitForFunction("document.activeElement?.tagName === 'H1'");
      const secret1 = 'first-secret-of-the-shop-0001';
      for (const [field, text] of [
        ['field-id', 'shop-orders'],
        ['field-displayName', 'Shop orders'],
        ['field-targetUrl', receiver.url],
        ['field-secret', secret1],
        ['field-events', 'Order Created'],
        ['field-timeoutMs', '2000'],
      ] as const) {
        await page.keyboard.press('Tab');
        expect(await focusedId(page)).toBe(field);
        await page.keyboard.type(text);
      }
      await page.keyboard.press('Enter');
      await page.locator('#field-events-error').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('events.0');
      await shots.step('subscriber-form-error');
      await expectAccessible(page, 'subscriber form with errors');
      await page.locator('#field-events').fill('order.*');
      await page.locator('#field-timeoutMs').press('Enter');
      await page.getByText('Subscriber Shop orders was created.').waitFor();
      const created = JSON.parse(writes.filter((write) => write.method === 'POST').at(-1)?.body ?? '{}');
      expect(created).toEqual({ id: 'shop-orders', displayName: 'Shop orders', targetUrl: receiver.url, secret: secret1, events: ['order.*'], enabled: true, timeoutMs: 2000 });
      await shots.step('subscriber-detail');
      await expectAccessible(page, 'subscriber detail');

      // An event published through the API reaches DELIVERED in the live events list and detail.
      receiver.expectSecret(secret1);
      const eventId = await publish('order.created');
      await page.getByRole('link', { name: 'Events' }).click();
      const row = page.locator(`tr[data-event-id="${eventId}"]`);
      await row.getByText('All delivered').waitFor({ timeout: 30_000 });
      await shots.step('events');
      await expectAccessible(page, 'events');
      // The list is live: an event published now shows up without a reload.
      const later = await publish('order.updated');
      await page.locator(`tr[data-event-id="${later}"]`).getByText('All delivered').waitFor({ timeout: 30_000 });
      await row.getByRole('link', { name: 'order.created' }).click();
      const delivery = page.locator('section.delivery');
      await delivery.locator('li[data-attempt="1"] .badge', { hasText: 'HTTP 200' }).waitFor({ timeout: 30_000 });
      await delivery.locator('h3 [data-status="DELIVERED"]').waitFor();
      expect(receiver.received.find((received) => received.eventId === eventId)).toMatchObject({ verified: true, answered: 200 });
      await shots.step('event-delivered');
      await expectAccessible(page, 'event detail');

      // The receiver now answers 500: a retry from the UI adds attempts that show in the timeline.
      receiver.answerWith(500);
      await delivery.getByRole('button', { name: 'Retry delivery' }).click();
      await page.getByText(/Delivery to shop-orders queued again/).waitFor();
      await delivery.locator('li[data-attempt="2"] .badge', { hasText: 'HTTP 500' }).waitFor({ timeout: 30_000 });
      await delivery.locator('h3 [data-status="FAILED"]').waitFor({ timeout: 30_000 });
      await delivery.locator('li[data-attempt="2"]').getByText('Response body (first 4 KiB)').click();
      await delivery.getByText('receiver is down for the test').first().waitFor();
      await shots.step('event-retried-failed');
      await expectAccessible(page, 'event detail with failed attempts');
      receiver.answerWith(200);
      // Redeliver the whole event (after confirming): the receiver is back, the next attempt succeeds.
      await page.getByRole('button', { name: 'Redeliver event' }).click();
      await page.getByRole('dialog', { name: 'Redeliver this event?' }).waitFor();
      await page.getByRole('button', { name: 'Redeliver', exact: true }).click();
      await page.getByText('Event queued again for 1 subscriber.').waitFor();
      await delivery.locator('h3 [data-status="DELIVERED"]').waitFor({ timeout: 30_000 });
      const lastAttempt = delivery.locator('li[data-attempt]').last();
      await lastAttempt.locator('.badge', { hasText: 'HTTP 200' }).waitFor();
      expect(Number(await lastAttempt.getAttribute('data-attempt'))).toBeGreaterThan(2);

      // Rotate the secret: the next delivery is signed with the new one.
      await delivery.getByRole('link', { name: 'shop-orders' }).click();
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('button', { name: 'Generate one' }).click();
      const secret2 = await page.locator('#new-secret').inputValue();
      expect(secret2).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('button', { name: 'Save new secret' }).click();
      await page.getByText('The secret of Shop orders was rotated.').waitFor();
      expect(JSON.parse(writes.at(-1)?.body ?? '{}')).toEqual({ secret: secret2 });
      await expectAccessible(page, 'rotate secret');
      receiver.expectSecret(secret2);
      const second = await publish('order.shipped');
      await vi.waitFor(() => expect(receiver.received.find((received) => received.eventId === second)).toMatchObject({ verified: true }), {
        timeout: 20_000,
        interval: 100,
      });

      // Edit sends only what changed; Enter in a field submits.
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.locator('#field-displayName').fill('Shop orders v2');
      await page.locator('#field-displayName').press('Enter');
      await page.getByText('Saved displayName of Shop orders v2.').waitFor();
      const edit = writes.filter((write) => write.method === 'PUT').at(-1);
      expect(edit?.url).toMatch(/\/api\/v0\.9\/webhook-subscribers\/shop-orders$/);
      expect(JSON.parse(edit?.body ?? '{}')).toEqual({ displayName: 'Shop orders v2' });

      // Disable, see the recent deliveries, delete with confirmation.
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('Shop orders v2 is now disabled.').waitFor();
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      await page.locator('section[aria-labelledby="recent-deliveries"] tbody tr').nth(1).waitFor({ timeout: 20_000 });
      await shots.step('subscriber-disabled');
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Delete Shop orders v2?' }).waitFor();
      await expectAccessible(page, 'delete confirmation');
      await page.getByRole('button', { name: 'Delete subscriber' }).click();
      await page.getByText('Subscriber Shop orders v2 was deleted.').waitFor();
      await page.getByRole('heading', { name: 'No subscribers yet' }).waitFor();

      // Sign out forgets the token.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out').waitFor();
      expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toBeNull();
      await shots.step('signed-out');

      expect(problems).toEqual([]);
      expect(host.logs.join('\n')).not.toContain(host.adminToken);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows a read-only token every action disabled, with the reason, and API errors in words', async () => {
    const viewer = await host.createToken(['dp:webhook_subscriber:read', 'dp:event:read'], { name: 'viewer' });
    await api('POST', '/api/v0.9/webhook-subscribers', { id: 'audit', displayName: 'Audit log', targetUrl: receiver.url, events: ['audit.*'] });
    const eventId = await publish('audit.recorded');
    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'read-only');
    const problems = watchForProblems(page);
    try {
      await page.goto(`${origin}/console/`);
      await page.getByLabel('API token').fill('hrd_not-a-real-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('That token was not accepted').waitFor();
      await page.getByLabel('API token').fill(viewer.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Read-only view').waitFor();
      expect(await page.getByRole('button', { name: 'New subscriber' }).isDisabled()).toBe(true);
      await page.getByText('Your token lacks the dp:webhook_subscriber:create (or dp:webhook_subscriber:manage) scope.').waitFor();
      await shots.step('subscribers');
      await expectAccessible(page, 'read-only subscribers');

      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      for (const name of ['Edit', 'Disable', 'Rotate secret', 'Delete', 'Recover deliveries']) expect(await page.getByRole('button', { name, exact: true }).isDisabled(), name).toBe(true);
      await expectAccessible(page, 'read-only subscriber detail');

      // A reload keeps the session (sessionStorage) and deep links work.
      await page.goto(`${origin}/console/#/events/${eventId}`);
      await page.reload();
      await page.locator('section.delivery').waitFor({ timeout: 20_000 });
      expect(await page.getByRole('button', { name: 'Redeliver event' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Retry delivery' }).isDisabled()).toBe(true);
      await page.getByText('Your token lacks the dp:delivery:manage scope.').waitFor();
      await shots.step('event');
      await expectAccessible(page, 'read-only event detail');

      await page.goto(`${origin}/console/#/events/no-such-event`);
      await page.getByRole('alert').getByText('Not found', { exact: true }).waitFor();
      expect(await page.getByRole('alert').textContent()).toMatch(/no-such-event.*not found|not found.*no-such-event/i);
      await expectAccessible(page, 'event not found');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('edits a payload filter, showing which recent events it lets through, and saves it', async () => {
    for (const [index, total] of [5, 250, 900].entries()) {
      await api('POST', '/api/v0.9/webhook-events', { eventType: 'basket.checked', aggregateId: `basket-${index}`, data: { total, card: 'x' } });
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'filter');
    const problems = watchForProblems(page);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/webhook-subscribers') && request.method() === 'POST') posts.push(request.postData() ?? '');
    });
    try {
      await page.goto(`${origin}/console/#/subscribers/new`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      await page.locator('#field-displayName').fill('Big baskets');
      await page.locator('#field-targetUrl').fill(receiver.url);
      await page.locator('#field-events').fill('basket.*');

      await page.locator('#field-filter').fill('{"data.total": {"$gte": 100, "$lt": 500}}');
      await page.locator('#filter-preview-summary').waitFor();
      // Other tests' events are among the recent ones too; only the baskets match.
      expect(await page.locator('#filter-preview-summary').textContent()).toMatch(/^1 of the \d+ most recent events match\.$/);
      expect(await page.locator('.filter-preview-list li').allTextContents()).toEqual([expect.stringContaining('basket/basket-1') as unknown]);
      await shots.step('filter-preview');
      await expectAccessible(page, 'subscriber form with a filter preview');

      // Not JSON: said at once, without asking the API. A refused operator: the API's path.
      await page.locator('#field-filter').fill('{"data.total": ');
      await page.locator('#field-filter-error').waitFor();
      expect(await page.locator('#field-filter-error').textContent()).toMatch(/^Not valid JSON/);
      await page.locator('#field-filter').fill('{"data.total": {"$regex": "^9"}}');
      await page.locator('#filter-preview-error').waitFor();
      expect(await page.locator('#filter-preview-error').textContent()).toContain('filter.data.total.$regex');
      // A sensitive field of the catalog is refused too (invoice.paid declares `card`).
      await page.locator('#field-filter').fill('{"data.card": {"$exists": true}}');
      await vi.waitFor(async () => expect(await page.locator('#filter-preview-error').textContent()).toContain('sensitive'), { timeout: 10_000 });

      await page.locator('#field-filter').fill('{"data.total": {"$gte": 100}}');
      await page.locator('#filter-preview-summary').waitFor();
      await vi.waitFor(async () => expect(await page.locator('#filter-preview-summary').textContent()).toMatch(/^2 of the \d+ most recent events match\.$/), { timeout: 10_000 });
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.getByText('Subscriber Big baskets was created.').waitFor();
      expect(JSON.parse(posts.at(-1) ?? '{}')).toMatchObject({ events: ['basket.*'], filter: { 'data.total': { $gte: 100 } } });
      const stored = await api<{ list: Array<{ displayName: string; filter?: unknown }> }>('GET', '/api/v0.9/webhook-subscribers?limit=100');
      expect(stored.list.find((item) => item.displayName === 'Big baskets')?.filter).toEqual({ 'data.total': { $gte: 100 } });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('recovers a failed range from the subscriber screen, and lists the event types', async () => {
    await api('POST', '/api/v0.9/webhook-subscribers', { id: 'ledger', displayName: 'Ledger', targetUrl: receiver.url, events: ['ledger.*'] });
    // The receiver fails until retries run out (3 attempts in the test host), then comes back.
    receiver.answerWith(500);
    await publish('ledger.posted');
    const deliveries = () => api<{ list: { status: string }[] }>('GET', '/api/v0.9/webhook-subscribers/ledger/deliveries');
    await vi.waitFor(async () => expect((await deliveries()).list.map((row) => row.status)).toEqual(['FAILED']), { timeout: 20_000, interval: 200 });
    receiver.answerWith(200);

    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'recover');
    const problems = watchForProblems(page);
    try {
      await page.goto(`${origin}/console/#/subscribers/ledger`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor();
      await page.locator('[data-health]').waitFor();
      expect(await page.getByLabel('Failed (retries ran out)').isChecked()).toBe(true);
      expect(await page.getByLabel('Delivered (replay them)').isChecked()).toBe(false);
      await expectAccessible(page, 'subscriber detail with recover form');

      // Defaults (the last hour, FAILED) cover the failed delivery; the recovery is followed to COMPLETED.
      await page.getByRole('button', { name: 'Recover deliveries' }).click();
      await page.locator('[data-recovery-status="COMPLETED"]').waitFor({ timeout: 30_000 });
      const requeued = Number(/\d+/.exec((await page.getByTestId('recovery-requeued').textContent()) ?? '')?.[0]);
      expect(requeued).toBeGreaterThanOrEqual(1);
      await page.locator('section[aria-labelledby="recent-deliveries"] [data-status="DELIVERED"]').waitFor({ timeout: 30_000 });
      expect((await deliveries()).list.map((row) => row.status)).toEqual(['DELIVERED']);
      await shots.step('recovered');
      await expectAccessible(page, 'completed recovery');

      // A disabled subscriber cannot be recovered (the API would answer 409): the button says why.
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('Ledger is now disabled.').waitFor();
      await page.getByText('This subscriber is disabled, and Herald refuses to recover its deliveries').waitFor();
      expect(await page.getByRole('button', { name: 'Recover deliveries' }).isDisabled()).toBe(true);

      // The event types screen: the configured type with its description and sensitive field, and Herald's own.
      await page.getByRole('link', { name: 'Event types' }).click();
      const configured = page.locator('tr[data-event-type="invoice.paid"]');
      await configured.getByText(INVOICE_PAID.description).waitFor();
      await configured.getByText('card', { exact: true }).waitFor();
      for (const type of ['herald.delivery_exhausted', 'herald.delivery_stalled', 'herald.recovery_completed', 'herald.subscriber_disabled', 'herald.subscriber_failing', 'herald.subscriber_recovered']) {
        await page.locator(`tr[data-event-type="${type}"]`).waitFor();
      }
      await shots.step('event-types');
      await expectAccessible(page, 'event types');
      // The catalog as AsyncAPI, saved as a file (fetched with the session's token, not by a bare link).
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download AsyncAPI' }).click()]);
      expect(download.suggestedFilename()).toBe('asyncapi.json');
      const asyncApi = JSON.parse(await readFile(await download.path(), 'utf8')) as { asyncapi: string; components: { messages: Record<string, { 'x-herald-sensitive-fields': string[] }> } };
      expect(asyncApi.asyncapi).toBe('3.0.0');
      expect(asyncApi.components.messages['invoice.paid']?.['x-herald-sensitive-fields']).toEqual(['card']);
      await configured.getByRole('link', { name: 'invoice.paid' }).click();
      await page.getByRole('heading', { level: 1, name: 'invoice.paid' }).waitFor();
      expect(JSON.parse((await page.locator('section[aria-labelledby="event-type-example"] pre').textContent()) ?? '')).toEqual(INVOICE_PAID.example);
      await expectAccessible(page, 'event type detail');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
  it('turns per-key ordering on and off from the subscriber form, and shows each ordered delivery\'s sequence', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'ordering');
    const problems = watchForProblems(page);
    const writes: { method: string; body: string | null }[] = [];
    page.on('request', (request) => {
      if (/\/webhook-subscribers(\/|$)/.test(new URL(request.url()).pathname) && request.method() !== 'GET') writes.push({ method: request.method(), body: request.postData() });
    });
    const stored = () => api<{ ordering?: string }>('GET', '/api/v0.9/webhook-subscribers/parcels');
    try {
      await page.goto(`${origin}/console/#/subscribers/new`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      await page.locator('#field-id').fill('parcels');
      await page.locator('#field-displayName').fill('Parcels');
      await page.locator('#field-targetUrl').fill(receiver.url);
      await page.locator('#field-events').fill('parcel.*');
      const ordered = page.getByLabel(/^Ordered per aggregate/);
      expect(await ordered.isChecked()).toBe(false);
      await ordered.check();
      await expectAccessible(page, 'subscriber form with ordering');
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.getByText('Subscriber Parcels was created.').waitFor();
      expect(JSON.parse(writes.at(-1)?.body ?? '{}')).toMatchObject({ id: 'parcels', ordering: 'aggregate' });
      expect((await stored()).ordering).toBe('aggregate');
      const shown = page.locator('dt:text-is("Ordering") + dd');
      await shown.getByText('Per aggregate: one at a time, in order').waitFor();

      // Two events of one parcel: the recent deliveries and the event's delivery card show their numbers.
      const first = (await api<{ eventId: string }>('POST', '/api/v0.9/webhook-events', { eventType: 'parcel.moved', aggregateType: 'parcel', aggregateId: 'p-1', data: {} })).eventId;
      await api('POST', '/api/v0.9/webhook-events', { eventType: 'parcel.moved', aggregateType: 'parcel', aggregateId: 'p-1', data: {} });
      const recent = page.locator('section[aria-labelledby="recent-deliveries"]');
      await recent.getByText('sequence 2').waitFor({ timeout: 30_000 });
      await recent.getByText('sequence 1').waitFor();
      await shots.step('ordered-subscriber');
      await page.goto(`${origin}/console/#/events/${first}`);
      await page.locator('section.delivery').getByText('sequence 1', { exact: true }).waitFor({ timeout: 20_000 });
      await expectAccessible(page, 'event detail of an ordered delivery');

      // Edit: unchecking sends only `ordering: "none"`, and the API no longer reports ordering.
      await page.goto(`${origin}/console/#/subscribers/parcels`);
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit Parcels' }).waitFor();
      expect(await ordered.isChecked()).toBe(true);
      await ordered.uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved ordering of Parcels.').waitFor();
      const edit = writes.filter((write) => write.method === 'PUT').at(-1);
      expect(JSON.parse(edit?.body ?? '{}')).toEqual({ ordering: 'none' });
      expect((await stored()).ordering).toBeUndefined();
      await shown.getByText('None', { exact: true }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
  it('sends a subscriber through a named egress proxy from the form, refuses an unknown name at its field, and returns to the default', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    const writes: { method: string; body: string | null }[] = [];
    page.on('request', (request) => {
      if (/\/webhook-subscribers(\/|$)/.test(new URL(request.url()).pathname) && request.method() !== 'GET') writes.push({ method: request.method(), body: request.postData() });
    });
    const stored = () => api<{ egressProxy?: string }>('GET', '/api/v0.9/webhook-subscribers/proxied');
    const receiverPort = new URL(receiver.url).port;
    try {
      await page.goto(`${origin}/console/#/subscribers/new`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      await page.locator('#field-id').fill('proxied');
      await page.locator('#field-displayName').fill('Proxied');
      await page.locator('#field-targetUrl').fill(receiver.url);
      await page.locator('#field-events').fill('shipment.*');
      await page.getByLabel('Egress proxy (optional)').fill('eu');
      await expectAccessible(page, 'subscriber form with an egress proxy');
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.getByText('Subscriber Proxied was created.').waitFor();
      expect(JSON.parse(writes.at(-1)?.body ?? '{}')).toMatchObject({ id: 'proxied', egressProxy: 'eu' });
      expect((await stored()).egressProxy).toBe('eu');
      const shown = page.locator('dt:text-is("Egress proxy") + dd');
      await shown.getByText('eu', { exact: true }).waitFor();

      // A delivery goes through the proxy, which is asked for the receiver's checked address.
      const before = receiver.received.length;
      await publish('shipment.sent');
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThan(before);
      expect(egress.connects.map((c) => c.authority)).toContain(`127.0.0.1:${receiverPort}`);

      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit Proxied' }).waitFor();
      const field = page.getByLabel('Egress proxy (optional)');
      expect(await field.inputValue()).toBe('eu');
      await field.fill('ap');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#field-egressProxy-error').waitFor();
      expect(await page.locator('#field-egressProxy-error').textContent()).toBe('no egress proxy named "ap" is configured; the names are "none", "eu"');
      await expectAccessible(page, 'subscriber form with a refused egress proxy');
      expect((await stored()).egressProxy).toBe('eu');

      await field.fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved egressProxy of Proxied.').waitFor();
      expect(JSON.parse(writes.filter((write) => write.method === 'PUT').at(-1)?.body ?? '{}')).toEqual({ egressProxy: null });
      expect((await stored()).egressProxy).toBeUndefined();
      await shown.getByText("The server's default").waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
  it('sets a client certificate from the form (a wrong key refused at its field), shows its subject, never the key, and removes it', async () => {
    const certs = certificateFactory();
    const ca = certs.authority('console CA');
    const client = certs.leaf('console-client', ca);
    const other = certs.leaf('other', ca);
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    const stored = () => api<{ tls?: { subject: string } }>('GET', '/api/v0.9/webhook-subscribers/mtls-form');
    try {
      await page.goto(`${origin}/console/#/subscribers/new`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      await page.locator('#field-id').fill('mtls-form');
      await page.locator('#field-displayName').fill('mTLS form');
      await page.locator('#field-targetUrl').fill('https://example.com/mtls');
      await page.getByLabel('Client certificate (optional, PEM)').fill(client.cert);
      await page.getByLabel('Client key (PEM)').fill(other.key);
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.locator('#field-clientKey-error').waitFor();
      expect(await page.locator('#field-clientKey-error').textContent()).toBe('is not the private key of clientCertificate');
      await expectAccessible(page, 'subscriber form with a refused client key');

      await page.getByLabel('Client key (PEM)').fill(client.key);
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.getByText('Subscriber mTLS form was created.').waitFor();
      const shown = page.locator('dt:text-is("Client certificate") + dd');
      await shown.getByText('CN=console-client', { exact: true }).waitFor();
      expect(await page.content()).not.toContain('PRIVATE KEY');
      expect((await stored()).tls?.subject).toBe('CN=console-client');

      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit mTLS form' }).waitFor();
      expect(await page.getByLabel('Client key (PEM)').inputValue()).toBe('');
      await page.getByLabel(/Remove the client certificate/).check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved tls of mTLS form.').waitFor();
      await shown.getByText('None', { exact: true }).waitFor();
      expect((await stored()).tls).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      certs.dispose();
    }
  }, 120_000);
  it('sets OAuth2 credentials from the form (plain http off this machine refused at its field), shows the client and token URL, never the secret, and removes them', async () => {
    const secret = 'console-oauth2-secret-31';
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    const stored = () => api<{ oauth2?: { clientId: string; clientSecretSet: boolean } }>('GET', '/api/v0.9/webhook-subscribers/oauth2-form');
    const shots = screenshots(page, 'oauth2');
    try {
      await page.goto(`${origin}/console/#/subscribers/new`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'New subscriber' }).waitFor();
      await page.locator('#field-id').fill('oauth2-form');
      await page.locator('#field-displayName').fill('OAuth2 form');
      await page.locator('#field-targetUrl').fill('https://example.com/oauth2');
      await page.getByLabel('OAuth2 token URL (optional)').fill('http://auth.example.com/token');
      await page.getByLabel('OAuth2 client id', { exact: true }).fill('console-client');
      await page.getByLabel('OAuth2 client secret', { exact: true }).fill(secret);
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.locator('#field-oauth2TokenUrl-error').waitFor();
      expect(await page.locator('#field-oauth2TokenUrl-error').textContent()).toContain('must be an https:// URL');
      await expectAccessible(page, 'subscriber form with a refused token URL');
      await shots.step('refused-token-url');

      await page.getByLabel('OAuth2 token URL (optional)').fill('https://auth.example.com/token');
      await page.getByRole('button', { name: 'Create subscriber' }).click();
      await page.getByText('Subscriber OAuth2 form was created.').waitFor();
      const shown = page.locator('dt:text-is("OAuth2") + dd');
      await shown.getByText('console-client', { exact: true }).waitFor();
      await shown.getByText('https://auth.example.com/token', { exact: true }).waitFor();
      expect(await page.content()).not.toContain(secret);
      expect((await stored()).oauth2).toMatchObject({ clientId: 'console-client', clientSecretSet: true });
      await shots.step('detail');

      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('heading', { level: 1, name: 'Edit OAuth2 form' }).waitFor();
      expect(await page.getByLabel('OAuth2 client secret', { exact: true }).inputValue()).toBe('');
      expect(await page.getByLabel('OAuth2 client id', { exact: true }).inputValue()).toBe('console-client');
      await page.getByLabel('Remove the OAuth2 client credentials').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved oauth2 of OAuth2 form.').waitFor();
      await shown.getByText('None', { exact: true }).waitFor();
      expect((await stored()).oauth2).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
  it('shows under the events list how long settled events are kept, and where that comes from', async () => {
    await api('PUT', '/api/v0.9/webhook-retention', {});
    await publish('ledger.posted');
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    try {
      await page.goto(`${origin}/console/#/events`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('[data-retention="host"]').getByText("Settled events are kept 30 days (the host's default)").waitFor();

      await api('PUT', '/api/v0.9/webhook-retention', { settledEventsDays: 14, byEventType: { 'ledger.posted': 0, 'audit.logged': 365 } });
      await page.reload();
      const note = page.locator('[data-retention="organization"]');
      await note.getByText("Settled events are kept 14 days (this organization's policy)").waitFor();
      await note.getByText('Per event type: audit.logged: 365 days, ledger.posted: forever.').waitFor();
      await expectAccessible(page, 'events with retention note');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await api('PUT', '/api/v0.9/webhook-retention', {});
    }
  }, 120_000);
  it('pages the events list forward by cursor, and shows a bad cursor as the API\'s refusal', async () => {
    // Other tests' subscribers may still publish Herald's own events meanwhile: totals are read as
    // shown, and the second page is compared with the API's answer to the same cursor, which newer
    // events cannot move.
    for (let index = 0; index < 25; index++) await publish('ledger.paged');
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    const shownRows = async () => Promise.all((await page.locator('tr[data-event-id]').all()).map((row) => row.getAttribute('data-event-id')));
    try {
      await page.goto(`${origin}/console/#/events`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const pager = page.getByRole('navigation', { name: 'Event pages' });
      await pager.getByText(/^1–20 of \d+$/).waitFor();
      const first = await shownRows();
      const next = pager.getByRole('link', { name: 'Next' });
      const href = await next.getAttribute('href');
      expect(href).toMatch(/^#\/events\?cursor=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      const cursor = href!.slice('#/events?cursor='.length);
      await next.click();
      await pager.getByText(/^21–\d+ of \d+$/).waitFor();
      // The cursor starts exactly where page 1 ended: the API's page for it, and nothing of page 1.
      const second = (await api<{ list: Array<{ eventId: string }> }>('GET', `/api/v0.9/webhook-events?limit=20&cursor=${cursor}`)).list.map((event) => event.eventId);
      await page.locator(`tr[data-event-id="${second[0]}"]`).waitFor();
      const shown = await shownRows();
      expect(shown).toEqual(second);
      expect(shown.filter((id) => first.includes(id))).toEqual([]);
      expect(await pager.getByRole('link', { name: 'Previous' }).getAttribute('href')).toBe('#/events');
      await expectAccessible(page, 'events page by cursor');

      await page.goto(`${origin}/console/#/events?cursor=bm90Lmlzc3VlZA.AAAAAAAAAAAAAAAAAAAAAA`);
      await page.getByText(/cursor/).first().waitFor();
      expect(await page.locator('tr[data-event-id]').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('marks a subscriber Herald auto-disabled in the list, explains it on its screen, and enables it again', async () => {
    // Nothing listens on the discard port: every attempt fails.
    await api('POST', '/api/v0.9/webhook-subscribers', { id: 'payroll', displayName: 'Payroll', targetUrl: 'http://127.0.0.1:9/hooks', events: ['payroll.*'] });
    await publish('payroll.run');
    const subscriber = () => api<{ enabled: boolean; health?: { state: string } }>('GET', '/api/v0.9/webhook-subscribers/payroll');
    await vi.waitFor(async () => expect((await subscriber()).health?.state).toMatch(/failing|open/), { timeout: 20_000, interval: 200 });
    // A worker replica whose clock is five days on finds it failing past the limit.
    const worker = await createHerald({
      mongo: { uri: host.database.uri, dbName: host.database.dbName },
      masterKeys: host.config.masterKeys,
      now: () => new Date(Date.now() + 5 * 86_400_000 + 60_000),
      delivery: { maintenanceIntervalMs: 300, jobPollIntervalMs: 200, ssrfAllowList: ['127.0.0.0/8'] },
    });
    try {
      await worker.start();
      await vi.waitFor(async () => expect((await subscriber()).enabled).toBe(false), { timeout: 40_000, interval: 200 });
    } finally {
      await worker.close();
    }

    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchForProblems(page);
    try {
      await page.goto(`${origin}/console/#/subscribers`);
      await page.getByLabel('API token').fill(host.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const row = page.locator('tr', { hasText: 'Payroll' });
      await row.locator('[data-disabled-reason="AUTO_DISABLED"]').getByText('Auto-disabled').waitFor();
      expect(await row.locator('[data-disabled-reason]').count()).toBe(1);
      await expectAccessible(page, 'subscribers with an auto-disabled one');

      await page.goto(`${origin}/console/#/subscribers/payroll`);
      const notice = page.locator('.notice[data-disabled-reason="AUTO_DISABLED"]');
      await notice.getByText('Disabled by Herald').waitFor();
      expect(await notice.textContent()).toContain('every delivery has failed since');
      expect(await notice.textContent()).toContain('auto-disable limit of 5d');
      await expectAccessible(page, 'auto-disabled subscriber');

      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByText('Payroll is now enabled.').waitFor();
      await notice.waitFor({ state: 'detached' });
      expect((await subscriber()).enabled).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await api('DELETE', '/api/v0.9/webhook-subscribers/payroll').catch(() => undefined);
    }
  }, 120_000);
});
