// Leader election over a coordination.k8s.io/v1 Lease: what a candidate should do (pure).
// Same rules as client-go's leaderelection: a lease is held while renewTime + duration is in the
// future; its holder renews it, anyone else may take it only once it has expired. Writes carry the
// Lease's resourceVersion, so of two candidates racing for an expired lease only one succeeds.

export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type LeaseDecision =
  | { action: 'create'; record: LeaseRecord }
  | { action: 'renew'; record: LeaseRecord }
  | { action: 'takeover'; record: LeaseRecord }
  | { action: 'wait'; holder: string; expiresAtMs: number };

export function leaseExpiresAtMs(record: LeaseRecord, defaultDurationSeconds: number): number {
  const renewedAt = Date.parse(record.renewTime ?? record.acquireTime ?? '');
  if (Number.isNaN(renewedAt)) return 0;
  return renewedAt + (record.leaseDurationSeconds ?? defaultDurationSeconds) * 1000;
}

export function decideLease(
  current: LeaseRecord | undefined,
  identity: string,
  leaseDurationSeconds: number,
  nowMs: number,
): LeaseDecision {
  const now = new Date(nowMs).toISOString();
  if (!current) {
    return { action: 'create', record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 } };
  }
  const holder = current.holderIdentity ?? '';
  if (holder === identity) {
    return { action: 'renew', record: { ...current, leaseDurationSeconds, renewTime: now } };
  }
  const expiresAtMs = leaseExpiresAtMs(current, leaseDurationSeconds);
  // An empty holder means the previous leader released the lease on shutdown.
  if (holder === '' || expiresAtMs <= nowMs) {
    return {
      action: 'takeover',
      record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: (current.leaseTransitions ?? 0) + 1 },
    };
  }
  return { action: 'wait', holder, expiresAtMs };
}

/** The record written on graceful shutdown: nobody holds it, so a standby takes over at once. */
export function releasedRecord(current: LeaseRecord): LeaseRecord {
  return { ...current, holderIdentity: '', renewTime: new Date(0).toISOString() };
}
