// Endpoint health transitions (engine/breaker.ts), pure.
import { expect, test } from 'vitest';
import { allowance, healthyBreaker, recordResult, type Breaker, type BreakerPolicy } from '../../src/engine/breaker.js';

const policy: BreakerPolicy = { failures: 3, windowMs: 1_000, probeBackoffMs: [100, 400] };

function run(results: Array<{ ok: boolean; at: number; probe?: boolean }>): { breaker: Breaker; transitions: string[] } {
  let breaker = healthyBreaker(0);
  const transitions: string[] = [];
  for (const { ok, at, probe } of results) {
    const next = recordResult(breaker, { ok, error: ok ? undefined : 'HTTP 503', probe }, at, policy);
    breaker = next.breaker;
    if (next.transition) transitions.push(next.transition);
  }
  return { breaker, transitions };
}

test('a failure makes it failing; a success heals it', () => {
  expect(run([{ ok: false, at: 10 }]).transitions).toEqual(['failing']);
  expect(run([{ ok: false, at: 10 }, { ok: true, at: 20 }])).toMatchObject({ transitions: ['failing', 'recovered'], breaker: { state: 'healthy', consecutiveFailures: 0, ramp: null } });
});

test('opens only with enough failures in a row AND no success for the window', () => {
  expect(run([{ ok: false, at: 0 }, { ok: false, at: 10 }, { ok: false, at: 20 }]).breaker.state).toBe('failing');
  expect(run([{ ok: false, at: 0 }, { ok: false, at: 10 }, { ok: false, at: 1_000 }])).toMatchObject({ transitions: ['failing', 'open'], breaker: { state: 'open', nextProbeAt: 1_100, lastError: 'HTTP 503' } });
  expect(run([{ ok: false, at: 0 }, { ok: true, at: 10 }, { ok: false, at: 20 }, { ok: false, at: 900 }, { ok: false, at: 1_010 }]).breaker.state).toBe('failing');
});

test('while open: nothing but one probe when due; failed probes back off; a good probe recovers with a ramp', () => {
  const opened = run([{ ok: false, at: 0 }, { ok: false, at: 10 }, { ok: false, at: 1_000 }]).breaker;
  expect(allowance(opened, 0, 16, 1_050)).toEqual({ slots: 0, probe: false });
  expect(allowance(opened, 0, 16, 1_100)).toEqual({ slots: 1, probe: true });
  expect(allowance(opened, 1, 16, 1_100)).toEqual({ slots: 0, probe: false });
  const failedProbe = recordResult(opened, { ok: false, probe: true }, 1_120, policy).breaker;
  expect(failedProbe).toMatchObject({ state: 'open', probes: 1, nextProbeAt: 1_520 });
  const notAProbe = recordResult(failedProbe, { ok: false }, 1_130, policy).breaker;
  expect(notAProbe.nextProbeAt).toBe(1_520);
  const recovered = recordResult(failedProbe, { ok: true, probe: true }, 1_600, policy);
  expect(recovered).toMatchObject({ transition: 'recovered', breaker: { state: 'healthy', ramp: 2 } });
  expect(allowance(recovered.breaker, 0, 16, 1_600).slots).toBe(2);
  const wider = recordResult(recovered.breaker, { ok: true }, 1_700, policy).breaker;
  expect(allowance(wider, 1, 16, 1_700).slots).toBe(3);
  expect(allowance(undefined, 4, 16, 0).slots).toBe(12);
});
