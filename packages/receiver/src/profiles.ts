// The two signing profiles of DECISIONS §6 and the constants that belong to each.

export type SigningProfile = 'standard' | 'api-portal';

export const SIGNING_PROFILES: readonly SigningProfile[] = ['standard', 'api-portal'];

/** HKDF `info` string per profile for the field-encryption key. */
export const FIELD_ENCRYPTION_INFO: Readonly<Record<SigningProfile, string>> = {
  standard: 'herald-webhook-field-encryption-v1',
  'api-portal': 'api-portal-webhook-field-encryption-v1',
};

/** Header names, lowercase (HTTP header names are case-insensitive; Node lowercases them). */
export const STANDARD_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  deliveryId: 'herald-delivery-id',
  attempt: 'herald-attempt',
} as const;

export const API_PORTAL_HEADERS = {
  event: 'x-api-portal-event',
  eventId: 'x-api-portal-event-id',
  deliveryId: 'x-api-portal-delivery-id',
  signature: 'x-api-portal-signature',
} as const;

/** Receivers reject deliveries whose timestamp is further than this from their clock. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
