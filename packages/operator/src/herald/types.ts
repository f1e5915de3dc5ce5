// The slice of Herald's HTTP API (spec section B, /api/v0.9) the operator uses.

export interface SubscriberRequest {
  id?: string;
  displayName?: string;
  targetUrl?: string;
  /** Never logged; "" removes the secret (DECISIONS §3). */
  secret?: string;
  events?: string[];
  enabled?: boolean;
  timeoutMs?: number;
}

export interface Subscriber {
  id: string;
  orgId?: string;
  displayName: string;
  targetUrl: string;
  enabled: boolean;
  events: string[];
  timeoutMs: number;
  hasSecret: boolean;
  createdBy: string;
  updatedBy?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface SubscriberPage {
  list: Subscriber[];
  count: number;
  pagination: { total: number; limit: number; offset: number };
}
