// The consumer portal's rules that need no browser (pure): which page is the portal, where a link
// carries its code, and which screens a portal session may open.
import type { Route } from '../router';

/** The host serves the console's page here with the portal's framing policy. */
export const PORTAL_PATH = '/console/portal/';

export function isPortalPath(pathname: string): boolean {
  return pathname === PORTAL_PATH;
}

/** The one-time code of a portal link: `#code=hpl_…`, in the fragment so no server ever logs it. */
export function codeFromHash(hash: string): string | undefined {
  return /^#code=(hpl_[A-Za-z0-9_-]{1,100})$/.exec(hash)?.[1];
}

/** The subscriber-facing screens: endpoints (list, detail, edit), events with their deliveries and attempts. */
const PORTAL_ROUTES: ReadonlySet<Route['name']> = new Set(['subscribers', 'subscriber', 'subscriber-edit', 'events', 'event']);

export function portalRoute(route: Route): Route {
  if (PORTAL_ROUTES.has(route.name) || route.name === 'not-found') return route;
  return { name: 'not-found', path: route.name };
}
