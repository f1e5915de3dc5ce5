import { configDefaults, defineConfig } from 'vitest/config';

// Kubernetes tests run in their own project so the kube-apiserver (+ kine) starts only for them.
const kubernetesTests = ['test/k8s/**/*.test.ts', 'packages/operator/test/**/*.test.ts'];
// End-to-end tests on a real one-node cluster (scripts/cluster.sh); each file starts its own.
const clusterTests = ['test/cluster/**/*.test.ts'];
// Tests that bound how fast Herald answers, resumes or stops when its store goes away or a client
// stalls: they run alone, so the load of another file beside them does not decide their bounds.
const timingTests = [
  'packages/core/test/engine/outage*.test.ts',
  'packages/core/test/engine/stall.test.ts',
  'packages/core/test/engine/shutdown.test.ts',
  'packages/server/test/internal-errors.test.ts',
  'packages/server/test/store-silent.test.ts',
  'packages/server/test/slow-clients.test.ts',
];

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (see each package's exports).
  resolve: { conditions: ['herald-source'] },
  ssr: { resolve: { conditions: ['herald-source'], externalConditions: ['herald-source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file per core. Vitest's default leaves a core free (one file at a time on a 2-core
    // machine), and most files spend their time waiting on a store, a receiver or a timer.
    maxWorkers: '100%',
    // CI also writes a JSON report: .ci/run prints its totals as a plain closing line. A second run
    // names its own (HERALD_TEST_REPORT, scripts/test-memory-mongo.sh) so the first one's is kept.
    reporters: process.env.CI ? ['default', ['json', { outputFile: process.env.HERALD_TEST_REPORT ?? '.data/test-report.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['packages/*/test/**/*.test.{ts,tsx}', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...kubernetesTests, ...clusterTests, ...timingTests],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: timingTests,
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'k8s',
          include: kubernetesTests,
          globalSetup: ['test/support/global-setup.ts', 'test/support/kube-global-setup.ts'],
          // The control plane and operator subprocesses share two cores: one file at a time.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: clusterTests,
          // A cluster is a node's worth of processes on two shared cores: one file at a time.
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 1_800_000,
        },
      },
    ],
  },
});
