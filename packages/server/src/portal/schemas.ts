// Request and response shapes of the consumer-portal routes (TypeBox: validation, types, OpenAPI).
import { schemas } from '@herald/core';
import { Type, type Static } from 'typebox';

/** Bounds of a link's lifetime: long enough to hand over, short enough that a leaked link soon dies. */
export const PORTAL_LINK_TTL = { minSeconds: 60, maxSeconds: 86_400, defaultSeconds: 600 } as const;
/** How long a session opened by a link lasts; the consumer opens a new link afterwards. */
export const PORTAL_SESSION_TTL_MS = 3_600_000;

const OrgHandle = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: "The tenant: an organization handle. Only the instance's own organization is accepted." });

export const PortalLinkRequest = Type.Object(
  {
    orgId: Type.Optional(OrgHandle),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: PORTAL_LINK_TTL.minSeconds,
        maximum: PORTAL_LINK_TTL.maxSeconds,
        description: `How long the link may be opened, in seconds (default ${PORTAL_LINK_TTL.defaultSeconds}). Once opened it is spent.`,
      }),
    ),
  },
  { additionalProperties: false, title: 'PortalLinkRequest', description: 'A consumer-portal link to make.', examples: [{ expiresInSeconds: 600 }] },
);
export type PortalLinkRequest = Static<typeof PortalLinkRequest>;

export const PortalLink = Type.Object(
  {
    url: Type.String({ description: 'Opens the portal: absolute when the host has a public URL, else its path. The code is in the fragment, which browsers never send to a server.' }),
    orgId: Type.String(),
    expiresAt: Type.String({ format: 'date-time', description: 'After this the link cannot be opened.' }),
  },
  {
    additionalProperties: false,
    title: 'PortalLink',
    description: 'A single-use consumer-portal link. Hand it to the consumer (or load it in an iframe); it is shown only once.',
    examples: [{ url: 'https://herald.example.com/console/portal/#code=hpl_…', orgId: 'default', expiresAt: '2026-11-26T08:10:00.000Z' }],
  },
);

export const PortalSessionRequest = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 200, pattern: schemas.TEXT_PATTERN, description: "The code from the link's fragment (`hpl_…`)." }) },
  { additionalProperties: false, title: 'PortalSessionRequest', description: "Exchanges a portal link's one-time code for a session.", examples: [{ code: 'hpl_…' }] },
);

export const PortalBranding = Type.Object(
  {
    name: Type.String({ description: "The sender's name." }),
    color: Type.Optional(Type.String({ description: "The sender's colour, `#rrggbb`, when configured." })),
  },
  { additionalProperties: false, title: 'PortalBranding', description: "How the portal presents the sender (HERALD_PORTAL_NAME, HERALD_PORTAL_COLOR)." },
);

export const PortalSession = Type.Object(
  {
    token: Type.String({ description: 'Bearer token of the session (`hps_…`): send it as Authorization: Bearer.' }),
    orgId: Type.String({ description: 'The tenant every call of this session is confined to.' }),
    scopes: Type.Array(Type.String(), { description: 'What the session may do: the subscriber-facing scopes only.' }),
    expiresAt: Type.String({ format: 'date-time' }),
    branding: PortalBranding,
  },
  {
    additionalProperties: false,
    title: 'PortalSession',
    description: 'A consumer-portal session, confined to one tenant and to the subscriber-facing operations.',
    examples: [{ token: 'hps_…', orgId: 'default', scopes: ['dp:event:read'], expiresAt: '2026-11-26T09:00:00.000Z', branding: { name: 'Acme', color: '#0b7285' } }],
  },
);
