// The consumer portal in a real browser (Debian's chromium, fresh profile) against a real host on
// FerretDB: a sender's page on another site frames a portal link; the portal opens under the
// sender's name and colour with only the subscriber-facing screens, shows only its tenant's
// endpoints, retries a delivery; the link cannot be opened twice; another tenant's data is out of
// reach by URL and by API with the portal's own credential; a site not in frame-ancestors cannot
// frame it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHerald, type Herald } from '@herald/core';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../../server/test/support/test-host.js';
import { seriousViolations } from './support/axe.js';
import { launchBrowser, screenshots } from './support/browser.js';
import { ensureConsoleBuilt } from './support/build.js';

const SESSION_KEY = 'herald.portal.session';
const OTHER_ORG = 'other-tenant';

let host: TestHost;
let browser: Browser;
let other: Herald;
let embedder: Server;
let embedderPort: number;
let origin: string;
let eventId: string;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${host.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function portalLink(): Promise<string> {
  const link = await api<{ url: string }>('POST', '/api/v0.9/portal-links', { expiresInSeconds: 300 });
  return `${origin}${link.url}`;
}

/** The sender's own site: one page that frames whatever portal URL it is given. */
function startEmbedder(): Promise<void> {
  embedder = createServer((request, response) => {
    const src = new URL(request.url ?? '/', 'http://x').searchParams.get('portal') ?? '';
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><title>Acme dashboard</title><h1>Acme dashboard</h1><iframe title="Webhooks" src="${src.replace(/"/g, '&quot;')}" width="1000" height="800"></iframe>`);
  });
  return new Promise((resolve) => embedder.listen(0, '127.0.0.1', () => {
    embedderPort = (embedder.address() as AddressInfo).port;
    resolve();
  }));
}

async function portalFrame(page: Page): Promise<Frame> {
  const element = await page.waitForSelector('iframe');
  const frame = await element.contentFrame();
  if (!frame) throw new Error('the iframe has no frame');
  return frame;
}

beforeAll(async () => {
  await ensureConsoleBuilt();
  await startEmbedder();
  // The sender's site is http://localhost:<port>: another site than the host's 127.0.0.1, so the
  // portal runs as a third-party frame, as it would on the sender's own domain.
  [host, browser] = await Promise.all([
    startTestHost({
      overrides: {
        portalName: 'Acme Payments',
        portalColor: '#0b7285',
        portalFrameAncestors: [`http://localhost:${embedderPort}`],
        eventTypes: [{ type: 'order.paid', description: 'An order was paid.', example: { total: 42 } }],
      },
    }),
    launchBrowser(),
  ]);
  origin = host.host.url;
  other = await createHerald({ mongo: { db: host.database.db }, masterKeys: host.config.masterKeys });
  await other.subscribers.create({ orgId: OTHER_ORG }, { id: 'theirs', displayName: 'Their endpoint', targetUrl: 'https://example.com/theirs' });
  await api('POST', '/api/v0.9/webhook-subscribers', { id: 'orders', displayName: 'Acme orders endpoint', targetUrl: 'http://127.0.0.1:9/orders' });
  await api('POST', '/api/v0.9/webhook-subscribers', { id: 'billing', displayName: 'Acme billing endpoint', targetUrl: 'http://127.0.0.1:9/billing' });
  eventId = (await api<{ eventId: string }>('POST', '/api/v0.9/webhook-events', { eventType: 'order.paid', aggregateId: 'o-1', data: { total: 1 } })).eventId;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await other?.close();
  await host?.close();
  await new Promise((resolve) => embedder?.close(resolve));
});

describe('consumer portal', () => {
  it("opens framed by the sender's site, branded, with only the tenant's subscriber-facing screens", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const shots = screenshots(page, 'portal-framed');
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // The portal's credential, as the frame sends it: a bearer header on same-origin API calls.
    const bearers = new Set<string>();
    page.on('request', (request) => {
      const authorization = request.headers().authorization;
      if (authorization) bearers.add(authorization);
    });
    const link = await portalLink();
    const code = new URL(link).hash.slice('#code='.length);
    await page.goto(`http://localhost:${embedderPort}/?portal=${encodeURIComponent(link)}`);
    const frame = await portalFrame(page);

    await frame.getByTestId('brand').waitFor();
    expect(await frame.getByTestId('brand').textContent()).toBe('Acme Payments webhooks');
    expect(await frame.evaluate('document.title')).toBe('Acme Payments · Webhooks');
    const topbar = await frame.evaluate<string>("getComputedStyle(document.querySelector('.topbar')).backgroundColor");
    expect(topbar).toBe('rgb(11, 114, 133)');
    // The spent code left the address bar; the session is in this frame's sessionStorage only.
    expect(frame.url()).not.toContain(code);
    expect(frame.url()).toMatch(/\/console\/portal\/#\/subscribers$/);
    // A third-party frame may be refused storage (chromium refuses it here, as browsers that block
    // third-party cookies do): the portal then holds its session in memory, and works the same.
    expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})`)).toBeNull();

    // Navigation: endpoints and events, nothing else.
    const nav = frame.getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Endpoints', 'Events']);
    await frame.getByRole('link', { name: 'Acme orders endpoint' }).waitFor();
    await frame.getByRole('link', { name: 'Acme billing endpoint' }).waitFor();
    expect(await frame.getByText('Their endpoint').count()).toBe(0);
    expect(await frame.getByRole('button', { name: 'New subscriber' }).count()).toBe(0);
    await shots.step('endpoints');
    expect(await seriousViolations(frame as unknown as Page), 'axe on the portal endpoints').toEqual([]);

    // An endpoint: edit, enable/disable, rotate secret — no delete, no bulk recovery.
    await frame.getByRole('link', { name: 'Acme orders endpoint' }).click();
    await frame.getByRole('heading', { name: 'Acme orders endpoint' }).waitFor();
    expect(await frame.getByRole('button', { name: 'Rotate secret' }).isEnabled()).toBe(true);
    expect(await frame.getByRole('button', { name: 'Edit' }).isEnabled()).toBe(true);
    expect(await frame.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await frame.getByRole('heading', { name: 'Recover deliveries' }).count()).toBe(0);

    // A test event: the catalog type's example, published for this tenant.
    await frame.getByLabel('Event type').selectOption('order.paid');
    await frame.getByRole('button', { name: 'Send test event' }).click();
    await frame.getByText('Test event order.paid sent.').waitFor();
    const sentLink = frame.getByRole('link', { name: /^event / });
    const sentId = ((await sentLink.textContent()) ?? '').replace(/^event /, '');
    const sent = await api<{ aggregateType: string; deliveries: Array<{ subscriberId: string }> }>('GET', `/api/v0.9/webhook-events/${sentId}`);
    expect(sent.aggregateType).toBe('test');
    expect(sent.deliveries.map((row) => row.subscriberId).sort()).toEqual(['billing', 'orders']);
    expect(await seriousViolations(frame as unknown as Page), 'axe on the portal endpoint').toEqual([]);

    // Deliveries and attempts: the event, its rows, retry one.
    await nav.getByRole('link', { name: 'Events' }).click();
    await frame.getByRole('heading', { name: 'Events' }).waitFor();
    await frame.goto(`${origin}/console/portal/#/events/${encodeURIComponent(eventId)}`);
    await frame.getByRole('button', { name: 'Retry delivery' }).first().waitFor();
    await frame.getByRole('button', { name: 'Retry delivery' }).first().click();
    await frame.getByText(/^Delivery to (orders|billing) queued again\./).waitFor();
    await shots.step('event');

    // By URL: the sender's screens are not there; another tenant's endpoint is not found.
    await frame.goto(`${origin}/console/portal/#/event-types`);
    await frame.getByRole('heading', { name: 'Nothing here' }).waitFor();
    await frame.goto(`${origin}/console/portal/#/subscribers/new`);
    await frame.getByRole('heading', { name: 'Nothing here' }).waitFor();
    await frame.goto(`${origin}/console/portal/#/subscribers/theirs`);
    await frame.getByText('ORG_NOT_FOUND').first().waitFor();
    expect(await frame.getByText('Their endpoint').count()).toBe(0);

    // By API, with the portal's own credential: another tenant's data and the sender's operations are refused.
    expect([...bearers].every((value) => /^Bearer hps_[A-Za-z0-9_-]{43}$/.test(value))).toBe(true);
    const bearer = [...bearers][0]!;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { authorization: bearer, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { code?: string; list?: Array<{ id: string }> } };
    };
    const answers = {
      theirs: await call('GET', '/api/v0.9/webhook-subscribers/theirs'),
      list: await call('GET', '/api/v0.9/webhook-subscribers?limit=100'),
      create: await call('POST', '/api/v0.9/webhook-subscribers', { id: 'x', displayName: 'X', targetUrl: 'https://example.com/x' }),
      retention: await call('GET', '/api/v0.9/webhook-retention'),
      link: await call('POST', '/api/v0.9/portal-links', {}),
      projects: await call('GET', '/api/v1/orgs/default/projects'),
    };
    expect(answers.theirs).toMatchObject({ status: 404, body: { code: 'ORG_NOT_FOUND' } });
    expect(answers.list.body.list?.map((item) => item.id).sort()).toEqual(['billing', 'orders']);
    for (const refused of [answers.create, answers.retention, answers.link, answers.projects]) {
      expect(refused).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a link opens once, its session survives a reload until it expires; a second browser gets a clear refusal', async () => {
    const link = await portalLink();
    const first = await browser.newContext();
    const firstPage = await first.newPage();
    await firstPage.goto(link);
    await firstPage.getByTestId('brand').waitFor();
    // Top-level, the session is kept for this tab: a reload stays in the portal without the code.
    expect(await firstPage.evaluate(`sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})`)).toContain('hps_');
    await firstPage.reload();
    await firstPage.getByRole('link', { name: 'Acme orders endpoint' }).waitFor();
    // Once the session is past its hour, the portal says so and keeps nothing.
    await host.database.db.collection('herald_server_portal_sessions').updateMany({}, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    await firstPage.reload();
    await firstPage.getByTestId('portal-closed').waitFor();
    expect(await firstPage.getByTestId('portal-closed').textContent()).toBe('Invalid or expired portal session: open a new portal link.');
    expect(await firstPage.evaluate(`sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})`)).toBeNull();
    expect(await seriousViolations(firstPage), 'axe on the closed portal').toEqual([]);
    await first.close();

    const second = await browser.newContext();
    const page = await second.newPage();
    await page.goto(link);
    await page.getByTestId('portal-closed').waitFor();
    expect(await page.getByTestId('portal-closed').textContent()).toBe('This portal link was already used: ask the sender for a new one.');
    expect(await page.getByRole('navigation').count()).toBe(0);
    expect(await page.getByLabel('API token').count()).toBe(0);
    expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})`)).toBeNull();
    await second.close();
  });

  it('a site not named in frame-ancestors cannot frame the portal', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/i.test(message.text())) refusals.push(message.text());
    });
    const link = await portalLink();
    // 127.0.0.1 is the host's own site, but not the configured http://localhost:<port> origin.
    await page.goto(`http://127.0.0.1:${embedderPort}/?portal=${encodeURIComponent(link)}`);
    const frame = await portalFrame(page);
    await page.waitForTimeout(1500);
    expect(await frame.locator('[data-testid="brand"]').count()).toBe(0);
    expect(refusals.join('\n')).toContain('frame-ancestors');
    await context.close();
  });
});
