// Which principal the operator's API token is, so `createdBy` tells our subscribers from foreign
// ones: HERALD_OPERATOR_PRINCIPAL when set, else asked once per process from `GET /api/v1/me`
// (read-only, so nothing is created in Herald to find out).
import type { HeraldClient } from './client.js';

export function principalResolver(client: Pick<HeraldClient, 'me'>, configured: string | undefined): () => Promise<string> {
  let known: Promise<string> | undefined = configured ? Promise.resolve(configured) : undefined;
  return () => {
    known ??= client.me().then(
      (me) => me.principal,
      (error: unknown) => {
        known = undefined; // try again on the next reconcile
        throw error;
      },
    );
    return known;
  };
}
