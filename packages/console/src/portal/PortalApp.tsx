// The consumer portal: the console confined to one tenant's subscriber-facing screens, under the
// sender's name and colour. It opens with the link's one-time code (spent at once and taken out of
// the address bar and history), keeps the session for this tab, and has no sign-in form: a consumer
// without a live session is told to ask the sender for a new link.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, asApiError, createClient } from '../api/client';
import { endpoints, loadHostInfo } from '../api/endpoints';
import type { HostInfo, Me, PortalBranding } from '../api/types';
import { href, useRoute } from '../router';
import { Layout } from '../screens/Layout';
import { Screen } from '../screens/Screen';
import { capabilitiesOf, portalCapabilities } from '../session/capabilities';
import { SessionContext, type Session } from '../session/context';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { exchangePortalCode } from './exchange';
import { codeFromHash, PORTAL_PATH, portalRoute } from './portal-page';
import { clearPortalSession, loadPortalSession, savePortalSession, type StoredPortalSession } from './portal-storage';

type PortalState = { kind: 'opening' } | { kind: 'closed'; message: string } | { kind: 'open'; stored: StoredPortalSession; me: Me };

/** The sender's colour and name on the page; set through the CSSOM, which the strict CSP allows. */
function applyBranding(branding: PortalBranding): void {
  document.title = `${branding.name} · Webhooks`;
  if (branding.color) document.documentElement.style.setProperty('--portal-color', branding.color);
}

function refusalText(error: ApiError): string {
  if (error.status === 410 || error.status === 401) return `${error.message}.`.replace(/\.\.$/, '.');
  return `The portal could not be opened: ${error.message}`;
}

async function openSession(): Promise<{ stored: StoredPortalSession; me: Me }> {
  const code = codeFromHash(window.location.hash);
  let stored = loadPortalSession();
  if (code) {
    // Spent by the exchange below: it must not stay in the address bar or the tab's history.
    history.replaceState(null, '', `${PORTAL_PATH}#/subscribers`);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    const session = await exchangePortalCode(code);
    stored = { token: session.token, branding: session.branding };
    savePortalSession(stored);
  }
  if (!stored) throw new ApiError(401, 'UNAUTHORIZED', 'This page needs a portal link: ask the sender of your webhooks for one');
  return { stored, me: await endpoints(createClient(stored.token)).me() };
}

export function PortalApp() {
  const route = portalRoute(useRoute());
  const [host, setHost] = useState<HostInfo>();
  const [state, setState] = useState<PortalState>({ kind: 'opening' });
  const [flash, setFlash] = useState<{ text: string; hops: number }>();
  const routeKey = href(route);
  useEffect(() => setFlash((current) => (current ? { ...current, hops: current.hops + 1 } : current)), [routeKey]);
  const notify = useCallback((text: string) => setFlash({ text, hops: 0 }), []);

  const close = useCallback((message: string) => {
    clearPortalSession();
    setState({ kind: 'closed', message });
  }, []);

  useEffect(() => {
    void loadHostInfo().then(setHost);
    openSession().then(
      ({ stored, me }) => {
        applyBranding(stored.branding);
        setState({ kind: 'open', stored, me });
      },
      (error: unknown) => close(refusalText(asApiError(error))),
    );
  }, [close]);

  const session = useMemo<Session | undefined>(() => {
    if (state.kind !== 'open' || !host) return undefined;
    const { stored, me } = state;
    const client = createClient(stored.token, () => close(`Your portal session has ended: ask ${stored.branding.name} for a new link.`));
    return {
      me,
      host,
      api: endpoints(client),
      can: portalCapabilities(capabilitiesOf(me.scopes, host.readOnly)),
      signOut: () => close('You left the portal. Open a new portal link to come back.'),
      notify,
      portal: stored.branding,
    };
  }, [state, host, close, notify]);

  if (state.kind === 'closed') {
    return (
      <main id="main" class="sign-in portal-closed">
        <h1>Webhook portal</h1>
        <p role="alert" data-testid="portal-closed">
          {state.message}
        </p>
      </main>
    );
  }
  if (!session) {
    return (
      <main id="main" class="sign-in" aria-busy="true">
        <p>Opening the portal…</p>
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Layout route={route} message={flash && flash.hops <= 1 ? flash.text : undefined} onDismissMessage={() => setFlash(undefined)}>
        <ErrorBoundary resetKey={routeKey}>
          <Screen route={route} />
        </ErrorBoundary>
      </Layout>
    </SessionContext.Provider>
  );
}
