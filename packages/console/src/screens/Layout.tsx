// The frame of every signed-in screen: skip link, navigation, who is signed in (and with what
// scopes), sign out, the read-only banner and the confirmation message of the last action.
import type { ComponentChildren } from 'preact';
import { href, type Route } from '../router';
import { useSession } from '../session/context';

function NavLink({ route, current, children }: { route: Route; current: boolean; children: ComponentChildren }) {
  return (
    <a href={href(route)} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

export function Layout({ route, message, onDismissMessage, children }: { route: Route; message?: string; onDismissMessage(): void; children: ComponentChildren }) {
  const { me, can, host, signOut, portal } = useSession();
  // 'event-type…' is checked before 'event…', which is its prefix.
  const section = route.name.startsWith('event-type')
    ? 'event-types'
    : route.name.startsWith('event')
      ? 'events'
      : route.name.startsWith('subscriber')
        ? 'subscribers'
        : undefined;
  return (
    <>
      <a class="skip-link" href="#main" onClick={(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        Skip to content
      </a>
      <header class={portal ? 'topbar portal-topbar' : 'topbar'}>
        <span class="brand" data-testid="brand">{portal ? `${portal.name} webhooks` : 'Herald console'}</span>
        <nav aria-label="Sections">
          <NavLink route={{ name: 'subscribers', offset: 0 }} current={section === 'subscribers'}>
            {portal ? 'Endpoints' : 'Subscribers'}
          </NavLink>
          <NavLink route={{ name: 'events', offset: 0 }} current={section === 'events'}>
            Events
          </NavLink>
          {!portal && (
            <NavLink route={{ name: 'event-types' }} current={section === 'event-types'}>
              Event types
            </NavLink>
          )}
        </nav>
        <div class="whoami">
          <details>
            <summary>
              {portal ? 'Portal session' : 'Signed in as'} <strong data-testid="principal-name">{me.name ?? me.principal}</strong>
            </summary>
            <dl class="facts compact">
              <dt>Principal</dt>
              <dd>
                <code>{me.principal}</code> ({me.kind})
              </dd>
              <dt>Organization</dt>
              <dd>{me.orgId}</dd>
              <dt>Scopes</dt>
              <dd>{me.scopes.length > 0 ? me.scopes.map((scope) => <code key={scope} class="scope">{scope}</code>) : 'none'}</dd>
              {me.expiresAt && (
                <>
                  <dt>Expires</dt>
                  <dd>{me.expiresAt}</dd>
                </>
              )}
            </dl>
          </details>
          <button type="button" class="button small" onClick={() => signOut()}>
            {portal ? 'Leave' : 'Sign out'}
          </button>
        </div>
      </header>
      {can.readOnly && (
        <p class="banner" role="note">
          Read-only view: {host.readOnly ? 'this host is in read-only mode' : 'your token carries no scope that changes anything'}. Actions are
          disabled.
        </p>
      )}
      <main id="main" tabIndex={-1}>
        <div role="status" class="flash-region">
          {message && (
            <p class="notice notice-good">
              {message}{' '}
              <button type="button" class="link-button" onClick={onDismissMessage}>
                Dismiss
              </button>
            </p>
          )}
        </div>
        {children}
      </main>
    </>
  );
}
