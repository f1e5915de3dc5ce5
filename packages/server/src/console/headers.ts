// Response headers of everything under /console/ (pure). The console is a static single-page app
// that only talks to this origin's API, so its policy can be strict: no inline script or style, no
// other origin to fetch from or be framed by, and forms that cannot submit anywhere by themselves
// (the app handles every submit in script, so a pasted token never leaves in a URL).
const CSP_WITHOUT_FRAMING = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

export const CONSOLE_CSP = [...CSP_WITHOUT_FRAMING, "frame-ancestors 'none'"].join('; ');

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * The consumer portal's page is the one thing meant to be framed: by the sender's own site, named
 * in configuration (HERALD_PORTAL_FRAME_ANCESTORS, checked at start). Everything else stays as strict.
 */
export function portalSecurityHeaders(frameAncestors: readonly string[]): Readonly<Record<string, string>> {
  return {
    ...CONSOLE_SECURITY_HEADERS,
    'content-security-policy': [...CSP_WITHOUT_FRAMING, `frame-ancestors ${frameAncestors.join(' ')}`].join('; '),
  };
}

/** Vite names built chunks with a content hash under assets/: a new build means new names. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and other fixed names: always revalidated (ETag), so a new build shows at once. */
export const REVALIDATE = 'no-cache';

/** The Cache-Control of a file, given its path relative to the console's build directory. */
export function cacheControlFor(relativePath: string): string {
  return /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(relativePath.split('\\').join('/')) ? IMMUTABLE : REVALIDATE;
}
