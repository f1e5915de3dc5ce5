// Vitest global setup: one MongoDB-wire server for the whole run; each test file uses its own database.
import type { TestProject } from 'vitest/node';
import { startStoreProcess } from './store-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
  }
}

/** The default store runs in a child process, not in the runner (store-process.ts says why). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.MONGODB_URI) {
    project.provide('mongoUri', process.env.MONGODB_URI);
    return async () => {};
  }
  const store = await startStoreProcess();
  project.provide('mongoUri', store.uri);
  return () => store.stop();
}
