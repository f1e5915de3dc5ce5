// The slice of Herald's HTTP API the operator uses: subscribers (spec section B, /api/v0.9) and /api/v1/me.

export interface SubscriberRequest {
  id?: string;
  displayName?: string;
  targetUrl?: string;
  /** Never logged; "" removes the secret (DECISIONS §3). */
  secret?: string;
  events?: string[];
  enabled?: boolean;
  timeoutMs?: number;
  /** null returns to Herald's default. */
  maxConcurrency?: number | null;
  rateLimitPerSecond?: number | null;
  /** Payload filter (Herald's docs/filters.md); null removes it. */
  filter?: Record<string, unknown> | null;
  ordering?: 'aggregate' | 'none';
}

export interface Subscriber {
  id: string;
  orgId?: string;
  displayName: string;
  targetUrl: string;
  enabled: boolean;
  events: string[];
  timeoutMs: number;
  maxConcurrency?: number;
  rateLimitPerSecond?: number;
  filter?: Record<string, unknown>;
  /** Present when deliveries are ordered per aggregate. */
  ordering?: 'aggregate';
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

/** `GET /api/v1/me`: the caller's identity (never the token). */
export interface Me {
  /** The id Herald records as createdBy/updatedBy. */
  principal: string;
  kind: 'api-token' | 'jwt';
  name?: string;
  scopes: string[];
  orgId: string;
  expiresAt?: string;
}
