// What the signed-in credential may do, from its scopes (GET /api/v1/me) and the host's read-only
// mode, each with the reason in words when it may not. The API enforces the same rules; this only
// keeps the UI from offering what would be refused.

export interface Capability {
  allowed: boolean;
  /** Why not, when not allowed. */
  reason?: string;
}

export interface Capabilities {
  readSubscribers: Capability;
  createSubscriber: Capability;
  updateSubscriber: Capability;
  deleteSubscriber: Capability;
  readEvents: Capability;
  /**
   * Trying a payload filter on recent events: it needs what creating a subscriber with that filter
   * needs, since its answers reveal data values as such a subscriber's deliveries would.
   */
  previewFilter: Capability;
  manageDeliveries: Capability;
  /** Publishing a catalog type's example as a test event. */
  sendTestEvent: Capability;
  /** True when no change at all is possible (read-only host, or a token without write scopes). */
  readOnly: boolean;
}

const SUBSCRIBER_MANAGE = 'dp:webhook_subscriber:manage';

export const READ_ONLY_HOST_REASON = 'This Herald host is in read-only mode (HERALD_READ_ONLY): it refuses every change.';

function scopeCapability(scopes: ReadonlySet<string>, needed: string, broader?: string): Capability {
  if (scopes.has(needed) || (broader !== undefined && scopes.has(broader))) return { allowed: true };
  const alternatives = broader === undefined ? needed : `${needed} (or ${broader})`;
  return { allowed: false, reason: `Your token lacks the ${alternatives} scope.` };
}

function writeCapability(scopes: ReadonlySet<string>, readOnlyHost: boolean, needed: string, broader?: string): Capability {
  if (readOnlyHost) return { allowed: false, reason: READ_ONLY_HOST_REASON };
  return scopeCapability(scopes, needed, broader);
}

export function capabilitiesOf(grantedScopes: readonly string[], readOnlyHost: boolean): Capabilities {
  const scopes = new Set(grantedScopes);
  const writes = {
    createSubscriber: writeCapability(scopes, readOnlyHost, 'dp:webhook_subscriber:create', SUBSCRIBER_MANAGE),
    updateSubscriber: writeCapability(scopes, readOnlyHost, 'dp:webhook_subscriber:update', SUBSCRIBER_MANAGE),
    deleteSubscriber: writeCapability(scopes, readOnlyHost, 'dp:webhook_subscriber:delete', SUBSCRIBER_MANAGE),
    manageDeliveries: writeCapability(scopes, readOnlyHost, 'dp:delivery:manage'),
    sendTestEvent: writeCapability(scopes, readOnlyHost, 'dp:event:publish'),
  };
  return {
    readSubscribers: scopeCapability(scopes, 'dp:webhook_subscriber:read', SUBSCRIBER_MANAGE),
    readEvents: scopeCapability(scopes, 'dp:event:read'),
    // A POST, so a read-only host refuses it like a change, though nothing is stored.
    previewFilter: writeCapability(scopes, readOnlyHost, 'dp:webhook_subscriber:create', SUBSCRIBER_MANAGE),
    ...writes,
    readOnly: Object.values(writes).every((capability) => !capability.allowed),
  };
}

export const NOT_IN_PORTAL_REASON = 'Not available in the webhook portal.';

/** The portal's session may not create, delete or preview filters (the API refuses them to it too). */
export function portalCapabilities(can: Capabilities): Capabilities {
  const refused: Capability = { allowed: false, reason: NOT_IN_PORTAL_REASON };
  return { ...can, createSubscriber: refused, deleteSubscriber: refused, previewFilter: refused };
}
