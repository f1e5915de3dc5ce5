// Who a call acts for: every service call names its organization and, when it writes, its actor.

/** Every call names its org and, when it writes, its actor (principal id for createdBy/updatedBy). */
export interface Scope {
  orgId: string;
  actor?: string;
}

export interface PrincipalDirectory {
  /** Returns the subset of `ids` that still exist; the others are shown as `deleted_user`. */
  existing(ids: string[]): Promise<Set<string>>;
}
