// Typed errors of the receiving side. Messages name what was wrong, never a secret or a signature.

export type WebhookVerificationErrorCode =
  | 'MISSING_HEADER'
  | 'INVALID_HEADER'
  | 'TIMESTAMP_OUT_OF_RANGE'
  | 'SIGNATURE_MISMATCH'
  | 'INVALID_SECRET'
  | 'INVALID_PAYLOAD'
  | 'DECRYPTION_FAILED';

export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}
