// The portal session lives in this tab's sessionStorage, like the console's token: it survives a
// reload, is gone with the tab, is never in a URL or a cookie. No cookie also means nothing for a
// browser's third-party-cookie rules to block when the portal is framed by the sender's site
// (storage is partitioned per top-level site, which is what a framed portal wants).
import type { PortalBranding } from '../api/types';

const KEY = 'herald.portal.session';

export interface StoredPortalSession {
  token: string;
  branding: PortalBranding;
}

export function loadPortalSession(): StoredPortalSession | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<StoredPortalSession> | null;
    if (typeof value?.token !== 'string' || typeof value.branding?.name !== 'string') return undefined;
    return { token: value.token, branding: value.branding };
  } catch {
    return undefined;
  }
}

export function savePortalSession(session: StoredPortalSession): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(session));
  } catch {
    // Storage refused: the session lasts until the page reloads.
  }
}

export function clearPortalSession(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
