// Project resources of the management API (/api/v1/orgs/{org}/projects). Projects group nothing yet;
// they exist so the CLI's {project} placeholder reaches a real resource (DECISIONS §2).
import { Type, type Static } from 'typebox';

export const PROJECT_HANDLE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const DisplayName = Type.String({ minLength: 1, maxLength: 255 });
const Description = Type.String({ maxLength: 2000 });

export const Project = Type.Object(
  {
    id: Type.String({ description: 'Handle of the project, unique within the organization.' }),
    orgId: Type.String(),
    displayName: Type.String(),
    description: Type.Optional(Type.String()),
    createdBy: Type.String({ description: "Creator's identity, or `deleted_user`." }),
    updatedBy: Type.String({ description: "Last updater's identity, or `deleted_user`." }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type Project = Static<typeof Project>;

export const ProjectCreateRequest = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: PROJECT_HANDLE_PATTERN, description: 'Generated (UUID) when omitted.' })),
    displayName: DisplayName,
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export type ProjectCreateRequest = Static<typeof ProjectCreateRequest>;

export const ProjectUpdateRequest = Type.Object(
  {
    displayName: Type.Optional(DisplayName),
    description: Type.Optional(Type.String({ ...Description, description: '"" removes the description.' })),
  },
  { additionalProperties: false },
);
export type ProjectUpdateRequest = Static<typeof ProjectUpdateRequest>;

export const ProjectParams = Type.Object(
  {
    org: Type.String({ minLength: 1, maxLength: 128 }),
    project: Type.String({ pattern: PROJECT_HANDLE_PATTERN }),
  },
  { additionalProperties: false },
);
