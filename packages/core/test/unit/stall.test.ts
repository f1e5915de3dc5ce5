import { describe, expect, it } from 'vitest';
import { judgeStall } from '../../src/engine/stall-watch.js';

const thresholds = { stallAfterMs: 45_000, loopStuckAfterMs: 120_000 };

describe('judgeStall', () => {
  it('a loop is stuck only once one step has lasted the threshold', () => {
    expect(judgeStall({ stepForMs: 119_999, sinceKeptUpMs: 0, oldestWaitingMs: undefined }, thresholds).loopStuck).toBe(false);
    expect(judgeStall({ stepForMs: 120_000, sinceKeptUpMs: 0, oldestWaitingMs: undefined }, thresholds).loopStuck).toBe(true);
  });

  it('a stall needs both: due work waiting past the threshold, and a poll that has not kept up as long', () => {
    expect(judgeStall({ stepForMs: 0, sinceKeptUpMs: 50_000, oldestWaitingMs: 50_000 }, thresholds).stalled).toBe(true);
    // Nothing due, or nothing due for long: an idle engine is no stall.
    expect(judgeStall({ stepForMs: 0, sinceKeptUpMs: 50_000, oldestWaitingMs: undefined }, thresholds).stalled).toBe(false);
    expect(judgeStall({ stepForMs: 0, sinceKeptUpMs: 50_000, oldestWaitingMs: 44_999 }, thresholds).stalled).toBe(false);
    // Old rows, but the poll claims: a backlog draining, not a stall.
    expect(judgeStall({ stepForMs: 0, sinceKeptUpMs: 1_000, oldestWaitingMs: 600_000 }, thresholds).stalled).toBe(false);
  });
});
