// The signed-in session every screen reads: who, what they may do, and the API bound to their token.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Endpoints } from '../api/endpoints';
import type { HostInfo, Me, PortalBranding } from '../api/types';
import type { Capabilities } from './capabilities';

export interface Session {
  me: Me;
  host: HostInfo;
  api: Endpoints;
  can: Capabilities;
  signOut(message?: string): void;
  /** A short confirmation read out to screen readers and shown at the top of the page. */
  notify(message: string): void;
  /** Set in the consumer portal: the sender's branding; the screens then offer only what a consumer does. */
  portal?: PortalBranding;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in session');
  return session;
}
