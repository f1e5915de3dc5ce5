// `webhooks portal-link` flags → a PortalLinkRequest body, and the link made absolute (pure).
import { usageError } from '../errors.js';

/** The server's bounds for a link's lifetime (docs/console.md "Consumer portal"). */
export const PORTAL_LINK_EXPIRY = { minSeconds: 60, maxSeconds: 86_400 } as const;
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };
const DURATION = /^(?:\d+[smhd])+$/;
const ORG_HANDLE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface PortalLinkBody {
  orgId?: string;
  expiresInSeconds?: number;
}

export function portalLinkRequest(flags: { org?: string; expires?: string }): PortalLinkBody {
  const body: PortalLinkBody = {};
  if (flags.org !== undefined) {
    if (!ORG_HANDLE.test(flags.org)) throw usageError('INVALID_FLAG_VALUE', `--org must be an organization handle (letters, digits, . _ -), got "${flags.org}"`);
    body.orgId = flags.org;
  }
  if (flags.expires !== undefined) {
    if (!DURATION.test(flags.expires)) {
      throw usageError('INVALID_FLAG_VALUE', `--expires must be a duration such as 10m, 1h or 1h30m, got "${flags.expires}"`);
    }
    let seconds = 0;
    for (const [, amount, unit] of flags.expires.matchAll(/(\d+)([smhd])/g)) seconds += Number(amount) * (UNIT_SECONDS[unit as string] ?? 0);
    if (seconds < PORTAL_LINK_EXPIRY.minSeconds || seconds > PORTAL_LINK_EXPIRY.maxSeconds) {
      throw usageError('INVALID_FLAG_VALUE', `--expires must be between 1m and 24h, got "${flags.expires}"`);
    }
    body.expiresInSeconds = seconds;
  }
  return body;
}

/** The server answers a path when it has no public URL configured: resolve it against the instance. */
export function absoluteLink(url: string, instanceUrl: string): string {
  return new URL(url, instanceUrl.endsWith('/') ? instanceUrl : `${instanceUrl}/`).toString();
}
