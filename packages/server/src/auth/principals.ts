// core's `principals.existing(ids)`: which createdBy/updatedBy identities still exist.
// API-token principals (`tok_…`) exist while their token is not revoked. JWT subjects belong to an
// identity provider Herald cannot query, so they are always reported as existing (documented choice).
import type { TokenStore } from './token-store.js';

const API_TOKEN_PRINCIPAL = /^tok_[0-9a-f]{12}$/;

export interface PrincipalDirectory {
  existing(ids: string[]): Promise<Set<string>>;
}

export function createPrincipalDirectory(tokens: TokenStore): PrincipalDirectory {
  return {
    async existing(ids) {
      const tokenPrincipals = ids.filter((id) => API_TOKEN_PRINCIPAL.test(id));
      const live = await tokens.existingPrincipals(tokenPrincipals);
      return new Set(ids.filter((id) => !API_TOKEN_PRINCIPAL.test(id) || live.has(id)));
    },
  };
}
