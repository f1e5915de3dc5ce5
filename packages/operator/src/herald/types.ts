// The slice of Herald's HTTP API the operator uses: subscribers (spec section B, /api/v0.9) and
// /api/v1/me. The shapes are the served OpenAPI documents' own (@herald/api-types:
// generated, checked by a test against what the host serves); the operator imports nothing of the
// server's packages.
import type { components as ManagementApi } from '@herald/api-types/management';
import type { components as WebhookApi } from '@herald/api-types/webhooks';

type Webhooks = WebhookApi['schemas'];

/** `secret` is never logged; "" removes it (DECISIONS §3). A null limit returns to Herald's default; a null filter removes it. */
export type SubscriberRequest = Webhooks['WebhookSubscriberRequest'];

type SubscriberDetail = Webhooks['WebhookSubscriberResponseSchema'];
/** What the operator never reads may be absent: list items carry no `updatedBy`. */
type Unread = 'orgId' | 'createdAt' | 'updatedAt' | 'updatedBy';
export type Subscriber = Omit<SubscriberDetail, Unread> & Partial<Pick<SubscriberDetail, Unread>>;

export type SubscriberPage = Webhooks['WebhookSubscriberList'];

/** `GET /api/v1/me`: the caller's identity (never the token); `principal` is the id Herald records as createdBy/updatedBy. */
export type Me = ManagementApi['schemas']['Me'];
