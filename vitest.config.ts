import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (see each package's exports).
  resolve: { conditions: ['herald-source'] },
  ssr: { resolve: { conditions: ['herald-source'], externalConditions: ['herald-source'] } },
  test: {
    include: ['packages/*/test/**/*.test.{ts,tsx}', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
