// @herald/receiver: the wire protocol of Herald deliveries (DECISIONS §6), for both sides.
export { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors.js';
export {
  API_PORTAL_HEADERS,
  DEFAULT_TOLERANCE_SECONDS,
  FIELD_ENCRYPTION_INFO,
  SIGNING_PROFILES,
  STANDARD_HEADERS,
  type SigningProfile,
} from './profiles.js';
export { signApiPortal, signStandard, standardSigningKey, unixSeconds, type Body, type SigningSecret } from './sign.js';
export {
  buildApiPortalHeaders,
  buildStandardHeaders,
  DEFAULT_USER_AGENT,
  type ApiPortalHeaderInput,
  type StandardHeaderInput,
} from './headers.js';
export {
  buildApiPortalBody,
  buildStandardBody,
  type ApiPortalEnvelope,
  type ApiPortalEnvelopeInput,
  type StandardEnvelope,
  type StandardEnvelopeInput,
} from './envelope.js';
export {
  decryptField,
  decryptFields,
  deriveFieldKey,
  encryptField,
  encryptWithKey,
  isEncryptedField,
  type EncryptedField,
} from './fields.js';
export { verify, type HeaderSource, type VerifiedDelivery, type VerifyOptions } from './verify.js';
