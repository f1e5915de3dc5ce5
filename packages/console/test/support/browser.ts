// Screenshots of the browser tests; chromium itself is launched by chromium.ts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { onTestFailed } from 'vitest';

export { CHROMIUM, launchBrowser } from './chromium.js';

export const SCREENSHOT_DIR = join(process.cwd(), '.data', 'console-screenshots');

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true }).catch(() => undefined);
}

/**
 * Screenshots `page` into .data/console-screenshots/ if the current test fails; with
 * HERALD_CONSOLE_SCREENSHOTS=all, also at every `step` (to look at the screens).
 */
export function screenshots(page: Page, test: string) {
  onTestFailed(() => screenshot(page, `${test}-failed`));
  return {
    async step(name: string) {
      if (process.env.HERALD_CONSOLE_SCREENSHOTS === 'all') await screenshot(page, `${test}-${name}`);
    },
  };
}
