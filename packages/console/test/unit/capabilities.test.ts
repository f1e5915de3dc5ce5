import { describe, expect, it } from 'vitest';
import { capabilitiesOf, READ_ONLY_HOST_REASON } from '../../src/session/capabilities';

describe('what a credential may do in the console', () => {
  it('allows everything to a token with every scope on a writable host', () => {
    const can = capabilitiesOf(['dp:webhook_subscriber:manage', 'dp:event:read', 'dp:event:publish', 'dp:delivery:manage'], false);
    expect(can.readOnly).toBe(false);
    expect(Object.values(can).filter((value) => typeof value === 'object' && !value.allowed)).toEqual([]);
  });

  it('says which scope a read-only token lacks', () => {
    const can = capabilitiesOf(['dp:webhook_subscriber:read', 'dp:event:read'], false);
    expect(can.readOnly).toBe(true);
    expect(can.readSubscribers.allowed).toBe(true);
    expect(can.createSubscriber).toEqual({ allowed: false, reason: 'Your token lacks the dp:webhook_subscriber:create (or dp:webhook_subscriber:manage) scope.' });
    expect(can.manageDeliveries.reason).toBe('Your token lacks the dp:delivery:manage scope.');
    expect(can.sendTestEvent.reason).toBe('Your token lacks the dp:event:publish scope.');
    // Reading events is not enough to try a filter: its answers would reveal data values.
    expect(can.previewFilter).toEqual({ allowed: false, reason: 'Your token lacks the dp:webhook_subscriber:create (or dp:webhook_subscriber:manage) scope.' });
    expect(capabilitiesOf(['dp:webhook_subscriber:create'], false).previewFilter.allowed).toBe(true);
  });

  it('grants single CRUD scopes one by one', () => {
    const can = capabilitiesOf(['dp:webhook_subscriber:update'], false);
    expect(can.updateSubscriber.allowed).toBe(true);
    expect(can.deleteSubscriber.allowed).toBe(false);
    expect(can.readOnly).toBe(false);
  });

  it('disables every change on a read-only host, whatever the scopes', () => {
    const can = capabilitiesOf(['dp:webhook_subscriber:manage', 'dp:event:read', 'dp:delivery:manage'], true);
    expect(can.readOnly).toBe(true);
    expect(can.updateSubscriber.reason).toBe(READ_ONLY_HOST_REASON);
    expect(can.readEvents.allowed).toBe(true);
  });
});
