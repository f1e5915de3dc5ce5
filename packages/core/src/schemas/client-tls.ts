// A subscriber's TLS client settings (mutual TLS) and what reads show of them. The key is write-only.
import { Type, type Static } from 'typebox';
import { TEXT_PATTERN } from './common.js';
import { DateTime } from './common.js';

export const CLIENT_TLS_LIMITS = {
  /** The client certificate, possibly followed by its intermediates. */
  certificateMaxChars: 32 * 1024,
  keyMaxChars: 16 * 1024,
  caBundleMaxChars: 128 * 1024,
} as const;

export const ClientTlsInput = Type.Object(
  {
    clientCertificate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CLIENT_TLS_LIMITS.certificateMaxChars,
        pattern: TEXT_PATTERN,
        description: 'PEM: the client certificate Herald presents, optionally followed by its intermediate certificates. Goes with clientKey.',
      }),
    ),
    clientKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CLIENT_TLS_LIMITS.keyMaxChars,
        pattern: TEXT_PATTERN,
        description: "PEM: the certificate's unencrypted private key. Stored encrypted like `secret`, never returned.",
      }),
    ),
    caBundle: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CLIENT_TLS_LIMITS.caBundleMaxChars,
        pattern: TEXT_PATTERN,
        description:
          "PEM: the certificate authorities trusted for this endpoint's server certificate, instead of the public ones. Omitted: the public ones.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberTls',
    description:
      'TLS towards an https endpoint: the client certificate and key Herald presents (mutual TLS), the CAs it trusts for that endpoint, or both. ' +
      'Replaced as a whole; new connections use it at once while connections already open finish their deliveries.',
  },
);
export type ClientTlsInput = Static<typeof ClientTlsInput>;

export const ClientTlsSummary = Type.Object(
  {
    subject: Type.Optional(Type.String({ description: "The client certificate's subject; absent with a CA bundle alone." })),
    issuer: Type.Optional(Type.String({ description: "The client certificate's issuer." })),
    fingerprint256: Type.Optional(Type.String({ description: "The client certificate's SHA-256 fingerprint (colon-separated hex)." })),
    notBefore: Type.Optional(DateTime),
    notAfter: Type.Optional(DateTime),
    caCertificates: Type.Integer({ minimum: 0, description: 'How many CA certificates are trusted for this endpoint; 0: the public ones.' }),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberTlsSummary',
    description: 'The client certificate a subscriber presents (mutual TLS) and the CAs it trusts for the endpoint; present when set. The key is never returned.',
  },
);
export type ClientTlsSummary = Static<typeof ClientTlsSummary>;
