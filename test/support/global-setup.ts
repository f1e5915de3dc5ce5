// Vitest global setup: one MongoDB-wire server for the whole run; each test file uses its own database.
import type { TestProject } from 'vitest/node';
import { startFerretDb } from './ferretdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.MONGODB_URI) {
    project.provide('mongoUri', process.env.MONGODB_URI);
    return async () => {};
  }
  const server = await startFerretDb();
  project.provide('mongoUri', server.uri);
  return () => server.stop();
}
