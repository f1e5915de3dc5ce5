// Waits for a MongoDB-wire server a benchmark or test started as a child process.
import type { ChildProcess } from 'node:child_process';
import { MongoClient } from 'mongodb';

/** Until the server started as `child` answers a ping; throws if it exits or `timeoutMs` passes. */
export async function waitForPing(uri: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await probe.db('admin').command({ ping: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.close();
    }
  }
}
