import { describe, expect, test } from 'vitest';
import { isEndedRunLockCheck } from '../../src/engine/job-lock-check.js';

const noLock = (name: string) => new Error(`execution of '${name}' canceled, no lockedAt date found. Ensure to call touch() for long running jobs to keep them alive.`);

describe("Agenda's lock check at the end of a run", () => {
  test('is no failure when the job it names has no body running here', () => {
    expect(isEndedRunLockCheck(noLock('herald:recover-expired-leases'), new Set())).toBe(true);
    expect(isEndedRunLockCheck(noLock('herald:recover-expired-leases'), new Set(['herald:retention']))).toBe(true);
  });

  test('is a failure while that job still runs, and any other error stays one', () => {
    expect(isEndedRunLockCheck(noLock('herald:retention'), new Set(['herald:retention']))).toBe(false);
    expect(isEndedRunLockCheck(new Error("execution of 'herald:retention' canceled, execution took more than 6000ms. Call touch() for long running jobs to keep them alive."), new Set())).toBe(false);
    expect(isEndedRunLockCheck(new Error('connection refused'), new Set())).toBe(false);
  });
});
