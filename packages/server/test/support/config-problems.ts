// The problems a configuration load reports, for tests that expect it to be refused.
import { HostConfigError } from '../../src/config/load.js';

export function problemsOf(action: () => unknown): string[] {
  try {
    action();
  } catch (error) {
    if (error instanceof HostConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a HostConfigError');
}
