// Builds the console into dist/ for @herald/server to serve at /console/. Everything it loads is a
// file of its own (no inline script or style, no data: URLs), as the console's CSP requires.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // Always the production JSX transform: a build started from a test run (NODE_ENV=test) would
  // otherwise embed source file paths and line numbers in every element.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
