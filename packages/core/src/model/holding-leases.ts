// Leases that hold a queued row without attempting it: a cancellation taking rows to end them, and a
// redelivery moving a row back from the history. A held row is IN_FLIGHT, so neither the engine nor
// another holder takes it, and what its holder read stays true until it lets go. When such a lease
// runs out (its holder stopped), no attempt was interrupted: lease recovery returns the row PENDING
// without counting one.
import { randomUUID } from 'node:crypto';

const HOLDERS = ['cancel', 'requeue'] as const;

export type Holder = (typeof HOLDERS)[number];

/** A lease owner for one holding: unique, and recognisable as not an attempt's. */
export function holdingLease(holder: Holder): string {
  return `${holder}:${randomUUID()}`;
}

export function isHoldingLease(leaseOwner: string | null | undefined): boolean {
  return leaseOwner !== null && leaseOwner !== undefined && HOLDERS.some((holder) => leaseOwner.startsWith(`${holder}:`));
}
