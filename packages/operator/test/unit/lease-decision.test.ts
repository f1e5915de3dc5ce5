import { describe, expect, it } from 'vitest';
import { decideLease, leaseExpiresAtMs, releasedRecord } from '../../src/leader/lease-decision.js';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');

describe('decideLease', () => {
  it('creates the lease when none exists', () => {
    expect(decideLease(undefined, 'a', 15, t0)).toEqual({
      action: 'create',
      record: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000Z', renewTime: '2026-01-01T00:00:00.000Z', leaseTransitions: 0 },
    });
  });

  it('renews its own lease and keeps the acquire time', () => {
    const held = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: 'A', renewTime: new Date(t0).toISOString(), leaseTransitions: 2 };
    const decision = decideLease(held, 'a', 15, t0 + 5_000);
    expect(decision).toMatchObject({ action: 'renew', record: { acquireTime: 'A', leaseTransitions: 2, renewTime: new Date(t0 + 5_000).toISOString() } });
  });

  it('waits while another holder is within its lease, takes over once it expired', () => {
    const held = { holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: new Date(t0).toISOString(), leaseTransitions: 1 };
    expect(decideLease(held, 'a', 15, t0 + 14_999)).toEqual({ action: 'wait', holder: 'b', expiresAtMs: t0 + 15_000 });
    expect(decideLease(held, 'a', 15, t0 + 15_000)).toMatchObject({ action: 'takeover', record: { holderIdentity: 'a', leaseTransitions: 2 } });
  });

  it('takes a released lease at once', () => {
    const released = releasedRecord({ holderIdentity: 'b', leaseDurationSeconds: 15, renewTime: new Date(t0).toISOString() });
    expect(released.holderIdentity).toBe('');
    expect(decideLease(released, 'a', 15, t0 + 1)).toMatchObject({ action: 'takeover' });
  });

  it('treats an unparseable renew time as expired', () => {
    expect(leaseExpiresAtMs({ holderIdentity: 'b' }, 15)).toBe(0);
  });
});
