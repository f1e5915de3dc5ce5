// The host's /console/ plugin without a browser: what it answers when the console is not built, the
// read-only flag it publishes, and which files may be cached for good.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheControlFor, IMMUTABLE, REVALIDATE } from '../../server/src/console/headers.js';
import { consolePlugin, NOT_BUILT_MESSAGE } from '../../server/src/console/plugin.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function appWith(options: { readOnly: boolean; root: string }): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(consolePlugin, options);
  cleanups.push(() => app.close());
  return app;
}

function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-console-unbuilt-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('/console/ on the host', () => {
  it('answers 503 in the ErrorResponse shape, saying how to build it, when the console is not built', async () => {
    const app = await appWith({ readOnly: false, root: emptyDir() });
    for (const url of ['/console', '/console/', '/console/assets/index-abc.js']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'error', code: 'SERVICE_UNAVAILABLE', message: NOT_BUILT_MESSAGE });
      expect(response.json().message).toContain('npm run build');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('publishes whether the host is read-only, for the console to disable its actions', async () => {
    const app = await appWith({ readOnly: true, root: emptyDir() });
    const response = await app.inject({ url: '/console/host.json' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ readOnly: true });
    expect(response.headers['cache-control']).toBe(REVALIDATE);
  });

  it('caches hashed build assets for good and everything else never without revalidation', () => {
    expect(cacheControlFor('assets/index-Bzt1z4rT.js')).toBe(IMMUTABLE);
    expect(cacheControlFor('assets/index-CURZeurw.css')).toBe(IMMUTABLE);
    expect(cacheControlFor('index.html')).toBe(REVALIDATE);
    expect(cacheControlFor('favicon.svg')).toBe(REVALIDATE);
    expect(cacheControlFor('assets/logo.svg')).toBe(REVALIDATE);
  });
});
