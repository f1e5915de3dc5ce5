// A subscriber's OAuth2 client credentials (RFC 6749 §4.4) and what reads show of them. The client
// secret is write-only.
import { Type, type Static } from 'typebox';
import { TEXT_PATTERN } from './common.js';

export const OAUTH2_LIMITS = {
  tokenUrlMax: 2048,
  clientIdMax: 256,
  clientSecretMax: 1024,
  scopeMax: 1024,
  audienceMax: 1024,
} as const;

const ClientAuthentication = Type.Union([Type.Literal('basic'), Type.Literal('body')], {
  description:
    'How the client id and secret reach the token endpoint: `basic` (default) as an HTTP Basic Authorization header (RFC 6749 §2.3.1), ' +
    '`body` as client_id and client_secret form fields.',
});

export const OAuth2Input = Type.Object(
  {
    tokenUrl: Type.String({
      minLength: 1,
      maxLength: OAUTH2_LIMITS.tokenUrlMax,
      pattern: TEXT_PATTERN,
      description: 'The token endpoint: https, or http to a loopback address only. Called through the same SSRF guard and egress proxy as the target.',
    }),
    clientId: Type.String({ minLength: 1, maxLength: OAUTH2_LIMITS.clientIdMax, pattern: TEXT_PATTERN }),
    clientSecret: Type.String({
      minLength: 1,
      maxLength: OAUTH2_LIMITS.clientSecretMax,
      pattern: TEXT_PATTERN,
      description: 'Stored encrypted like `secret`, never returned.',
    }),
    scope: Type.Optional(Type.String({ minLength: 1, maxLength: OAUTH2_LIMITS.scopeMax, pattern: TEXT_PATTERN, description: 'Sent as the token request\'s `scope`.' })),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: OAUTH2_LIMITS.audienceMax, pattern: TEXT_PATTERN, description: 'Sent as the token request\'s `audience`.' })),
    clientAuthentication: Type.Optional(ClientAuthentication),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberOAuth2',
    description:
      'OAuth2 client credentials: Herald obtains an access token from tokenUrl, keeps it until shortly before it expires, and sends it as ' +
      '`Authorization: Bearer …` beside the signature. Replaced as a whole.',
  },
);
export type OAuth2Input = Static<typeof OAuth2Input>;

export const OAuth2Summary = Type.Object(
  {
    tokenUrl: Type.String(),
    clientId: Type.String(),
    clientSecretSet: Type.Boolean({ description: 'Always true: a client secret is stored (it is never returned).' }),
    scope: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    clientAuthentication: ClientAuthentication,
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberOAuth2Summary',
    description: "A subscriber's OAuth2 client credentials; present when set. The client secret is never returned.",
  },
);
export type OAuth2Summary = Static<typeof OAuth2Summary>;
