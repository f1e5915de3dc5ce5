// Debian's chromium driven by playwright-core (no browser download): headless, sandbox off (tests
// run as root in CI), nothing fetched in the background, a fresh profile per launch.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { onTestFailed } from 'vitest';

export const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(process.cwd(), '.data', 'console-screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run 'bash scripts/tools/chromium.sh' (make test does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

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
