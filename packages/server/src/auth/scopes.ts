// Scopes of DECISIONS §4 and the one rule about them: `…:manage` satisfies the subscriber CRUD scopes (pure).
export const SCOPES = {
  subscriberCreate: 'dp:webhook_subscriber:create',
  subscriberRead: 'dp:webhook_subscriber:read',
  subscriberUpdate: 'dp:webhook_subscriber:update',
  subscriberDelete: 'dp:webhook_subscriber:delete',
  subscriberManage: 'dp:webhook_subscriber:manage',
  eventRead: 'dp:event:read',
  eventPublish: 'dp:event:publish',
  deliveryManage: 'dp:delivery:manage',
  projectRead: 'dp:project:read',
  projectManage: 'dp:project:manage',
  portalLinkCreate: 'dp:portal_link:create',
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES);

const SATISFIED_BY: Partial<Record<Scope, Scope[]>> = {
  [SCOPES.subscriberCreate]: [SCOPES.subscriberManage],
  [SCOPES.subscriberRead]: [SCOPES.subscriberManage],
  [SCOPES.subscriberUpdate]: [SCOPES.subscriberManage],
  [SCOPES.subscriberDelete]: [SCOPES.subscriberManage],
  // Managing projects includes reading them.
  [SCOPES.projectRead]: [SCOPES.projectManage],
};

/** The scopes any one of which grants `required`: itself first, then the broader ones. */
/**
 * What a consumer-portal session carries: the subscriber-facing operations only. Routes a session
 * may call are also marked one by one (`portal: true`), so a scope alone never opens a route to it:
 * `dp:event:publish` lets it send a catalog example as a test event, not publish events of its own.
 */
export const PORTAL_SESSION_SCOPES: readonly Scope[] = [
  SCOPES.subscriberRead,
  SCOPES.subscriberUpdate,
  SCOPES.eventRead,
  SCOPES.eventPublish,
  SCOPES.deliveryManage,
];

export function scopesGranting(required: Scope): Scope[] {
  return [required, ...(SATISFIED_BY[required] ?? [])];
}

export function hasScope(granted: ReadonlySet<string>, required: Scope): boolean {
  return granted.has(required) || (SATISFIED_BY[required] ?? []).some((scope) => granted.has(scope));
}

export function isKnownScope(scope: string): scope is Scope {
  return (ALL_SCOPES as readonly string[]).includes(scope);
}
