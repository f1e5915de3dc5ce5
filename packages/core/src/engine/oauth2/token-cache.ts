// Access tokens per subscriber: obtained on first need, reused until shortly before they expire
// (token-response.ts), one request at a time per subscriber however many attempts wait for it.
//
// An entry belongs to one version of the subscriber's credentials: every change of `oauth2` seals
// the client secret anew (a fresh IV), so a changed URL, id, secret, scope or audience never reuses
// a token obtained under the old ones. Failures are not kept: the next attempt asks again.
import type { SealedSecret, SubscriberOAuth2Document } from '../../storage/documents.js';
import { requestToken, type TokenRequestOptions } from './token-request.js';
import type { TokenAnswer } from './token-response.js';

export type TokenCall = Pick<TokenRequestOptions, 'timeoutMs' | 'egressProxy' | 'signal'>;

export interface TokenSource {
  /** A usable token for the subscriber's credentials; concurrent callers share one request. */
  tokenFor(subscriberId: string, oauth2: SubscriberOAuth2Document, call: TokenCall): Promise<TokenAnswer>;
  /** Forgets `token` if it is still the one kept (the receiver refused it); a newer one is left alone. */
  drop(subscriberId: string, oauth2: SubscriberOAuth2Document, token: string): void;
}

export interface TokenSourceDeps {
  request: Omit<TokenRequestOptions, keyof TokenCall | 'poolKey'>;
  open(sealed: SealedSecret): string;
  capacity?: number;
}

interface Entry {
  version: string;
  answer?: Extract<TokenAnswer, { ok: true }>;
  pending?: Promise<TokenAnswer>;
}

const DEFAULT_CAPACITY = 10_000;

const versionOf = (oauth2: SubscriberOAuth2Document): string => `${oauth2.clientSecret.keyId}:${oauth2.clientSecret.iv}:${oauth2.clientSecret.tag}`;

export function createTokenSource(deps: TokenSourceDeps): TokenSource {
  const entries = new Map<string, Entry>();
  const capacity = deps.capacity ?? DEFAULT_CAPACITY;
  const now = deps.request.now;

  const entryOf = (subscriberId: string, oauth2: SubscriberOAuth2Document): Entry => {
    const version = versionOf(oauth2);
    let entry = entries.get(subscriberId);
    if (entry?.version !== version) {
      entry = { version };
      entries.set(subscriberId, entry);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    }
    return entry;
  };

  return {
    tokenFor(subscriberId, oauth2, call) {
      const entry = entryOf(subscriberId, oauth2);
      if (entry.answer && entry.answer.token.usableUntilMs > now()) return Promise.resolve(entry.answer);
      if (entry.pending) return entry.pending;
      const client = {
        tokenUrl: oauth2.tokenUrl,
        clientId: oauth2.clientId,
        clientSecret: deps.open(oauth2.clientSecret),
        scope: oauth2.scope,
        audience: oauth2.audience,
        clientAuthentication: oauth2.clientAuthentication,
      };
      const pending = requestToken(client, { ...deps.request, ...call, poolKey: subscriberId })
        .catch((): TokenAnswer => ({ ok: false, message: 'the token request failed unexpectedly' }))
        .then((answer) => {
          if (entry.pending === pending) delete entry.pending;
          if (answer.ok) entry.answer = answer;
          return answer;
        });
      entry.pending = pending;
      return pending;
    },
    drop(subscriberId, oauth2, token) {
      const entry = entries.get(subscriberId);
      if (entry?.version === versionOf(oauth2) && entry.answer?.token.value === token) delete entry.answer;
    },
  };
}
