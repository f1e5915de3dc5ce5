// Who is calling: the identity recorded as createdBy/updatedBy, what it may do, and its org.
export interface Principal {
  /** API token's principal id, the JWT `sub`, or the portal session's id. Passed to core as `scope.actor`. */
  id: string;
  kind: 'api-token' | 'jwt' | 'portal';
  scopes: ReadonlySet<string>;
  /** The org claim of a JWT, or the org a portal session is confined to; API tokens belong to the instance's org. */
  orgId?: string;
  /** The API token's name, or a JWT's `name` claim; for display only (GET /api/v1/me). */
  name?: string;
  /** When the credential stops working (API token expiry or JWT `exp`); absent when it never does. */
  expiresAt?: Date;
}
