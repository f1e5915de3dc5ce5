#!/usr/bin/env node
// The `herald-server` command as npm links it (node_modules/.bin/herald-server) at install time,
// before the TypeScript is built: it runs the built host, or says how to build it.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const built = new URL('../dist/bin/herald-server.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('herald-server: the host is not built yet; run `make build` (or `make up`) in the Herald checkout\n');
  process.exit(69);
}
await import(built.href);
