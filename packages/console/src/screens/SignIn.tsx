// Sign in by pasting an API token. It is checked against GET /api/v1/me before being kept, and the
// form never submits natively (CSP form-action 'none' backs this up), so the token cannot end up in
// a URL.
import { useState } from 'preact/hooks';
import { asApiError, createClient, type ApiError } from '../api/client';
import { endpoints } from '../api/endpoints';
import type { Me } from '../api/types';
import { ErrorNotice } from '../ui/ErrorNotice';

export function SignIn({ notice, onSignedIn }: { notice?: string; onSignedIn(token: string, me: Me): void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) return;
    setBusy(true);
    setError(undefined);
    try {
      const me = await endpoints(createClient(value)).me();
      setToken('');
      onSignedIn(value, me);
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Herald console</h1>
      <p class="lede">Manage webhook subscribers and watch deliveries on this Herald host.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form class="card" method="post" onSubmit={submit} aria-busy={busy}>
        <div class="field">
          <label for="token">API token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            autoFocus
            aria-describedby="token-hint"
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
          <p id="token-hint" class="hint">
            A Herald API token (<code>hrd_…</code>) or a JWT. After <code>make up</code> the bootstrap admin token is in{' '}
            <code>.data/bootstrap-token</code>; <code>herald-server token create --name console --scopes all</code> issues another. It is kept in
            this tab only (sessionStorage) until you sign out or close the tab.
          </p>
        </div>
        {error && <ErrorNotice error={error} title={error.status === 401 ? 'That token was not accepted' : undefined} />}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
