// The token lives in sessionStorage only: it survives a reload of this tab, is gone when the tab
// closes, is never shared with other tabs, and never appears in a URL, a cookie or a log line.
const KEY = 'herald.console.token';

export function loadToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused (private mode quotas): the session lasts until the page reloads.
  }
}

export function clearToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
