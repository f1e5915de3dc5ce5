// The browser tests need the console's build: `npm test` makes it first; a direct
// `npx vitest run packages/console` builds it here when it is missing or older than its sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const DIST_DIR = join(CONSOLE_DIR, 'dist');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

export async function ensureConsoleBuilt(): Promise<void> {
  const index = join(DIST_DIR, 'index.html');
  const sources = ['src', 'public', 'index.html', 'vite.config.ts'].map((name) => join(CONSOLE_DIR, name));
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  const { build } = await import('vite');
  await build({ configFile: join(CONSOLE_DIR, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
}
