// The console's root: signed out it shows the sign-in form; signed in it restores the session from
// sessionStorage (checking the token again), and routes between the screens.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createClient } from './api/client';
import { endpoints, loadHostInfo } from './api/endpoints';
import type { HostInfo, Me } from './api/types';
import { href, useRoute, type Route } from './router';
import { EventDetail } from './screens/events/EventDetail';
import { EventsList } from './screens/events/EventsList';
import { EventTypeDetail } from './screens/event-types/EventTypeDetail';
import { EventTypesList } from './screens/event-types/EventTypesList';
import { Layout } from './screens/Layout';
import { NotFound } from './screens/NotFound';
import { SignIn } from './screens/SignIn';
import { SubscriberDetail } from './screens/subscribers/SubscriberDetail';
import { SubscriberForm } from './screens/subscribers/SubscriberForm';
import { SubscribersList } from './screens/subscribers/SubscribersList';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { capabilitiesOf } from './session/capabilities';
import { SessionContext, type Session } from './session/context';
import { clearToken, loadToken, saveToken } from './session/token-storage';

interface SignedIn {
  token: string;
  me: Me;
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'subscribers':
      return <SubscribersList offset={route.offset} />;
    case 'subscriber-new':
      return <SubscriberForm />;
    case 'subscriber':
      return <SubscriberDetail id={route.id} />;
    case 'subscriber-edit':
      return <SubscriberForm id={route.id} />;
    case 'events':
      return <EventsList offset={route.offset} status={route.status} cursor={route.cursor} />;
    case 'event':
      return <EventDetail id={route.id} />;
    case 'event-types':
      return <EventTypesList />;
    case 'event-type':
      return <EventTypeDetail type={route.type} />;
    case 'not-found':
      return <NotFound path={route.path} />;
  }
}

export function App() {
  const route = useRoute();
  const [host, setHost] = useState<HostInfo>();
  const [signedIn, setSignedIn] = useState<SignedIn>();
  const [restoring, setRestoring] = useState(() => loadToken() !== null);
  const [notice, setNotice] = useState<string>();
  // A confirmation stays for the navigation its action causes (create → detail) and goes after the next.
  const [flash, setFlash] = useState<{ text: string; hops: number }>();
  const routeKey = href(route);
  useEffect(() => setFlash((current) => (current ? { ...current, hops: current.hops + 1 } : current)), [routeKey]);
  const notify = useCallback((text: string) => setFlash({ text, hops: 0 }), []);

  const signOut = useCallback((reason?: string) => {
    clearToken();
    setSignedIn(undefined);
    setFlash(undefined);
    setNotice(reason ?? 'You are signed out. The token was removed from this tab.');
  }, []);

  useEffect(() => {
    void loadHostInfo().then(setHost);
    const token = loadToken();
    if (!token) return;
    endpoints(createClient(token))
      .me()
      .then((me) => setSignedIn({ token, me }))
      .catch((error: unknown) =>
        signOut(
          error instanceof ApiError && error.status === 401
            ? 'Your saved token is no longer accepted: sign in again.'
            : `Herald could not confirm your session (${error instanceof Error ? error.message : String(error)}): sign in again.`,
        ),
      )
      .finally(() => setRestoring(false));
  }, [signOut]);

  const session = useMemo<Session | undefined>(() => {
    if (!signedIn || !host) return undefined;
    const client = createClient(signedIn.token, (error) => signOut(`Signed out: Herald refused the token (${error.message}).`));
    return {
      me: signedIn.me,
      host,
      api: endpoints(client),
      can: capabilitiesOf(signedIn.me.scopes, host.readOnly),
      signOut,
      notify,
    };
  }, [signedIn, host, signOut, notify]);

  if (restoring || (signedIn && !host)) {
    return (
      <main id="main" class="sign-in" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(token, me) => {
          saveToken(token);
          setNotice(undefined);
          setSignedIn({ token, me });
        }}
      />
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
