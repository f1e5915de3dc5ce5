// Debian's chromium driven by playwright-core (no browser download): headless, sandbox off (tests
// run as root in CI), nothing fetched in the background, a fresh profile per launch (launch()
// makes a temporary user-data dir and removes it on close). Kept apart from browser.ts, which
// needs vitest, so the console benchmark (bench/console.ts) launches the browser the same way.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run 'bash scripts/tools/chromium.sh' (make test does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
