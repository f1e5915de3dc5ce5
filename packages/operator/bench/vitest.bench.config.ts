// Runs the operator benchmark with the same control plane as the k8s tests (FerretDB, kine,
// kube-apiserver). A benchmark, not a test: it prints figures and asserts nothing about them.
//   npm run bench -w packages/operator
export default {
  root: new URL('../../..', import.meta.url).pathname,
  resolve: { conditions: ['herald-source'] },
  ssr: { resolve: { conditions: ['herald-source'], externalConditions: ['herald-source'] } },
  test: {
    include: ['packages/operator/bench/**/*.bench-run.ts'],
    globalSetup: ['test/support/global-setup.ts', 'test/support/kube-global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
};
