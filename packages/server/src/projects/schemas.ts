// Project resources of the management API (/api/v1/orgs/{org}/projects). Projects group nothing yet;
// they exist so the CLI's {project} placeholder reaches a real resource (DECISIONS §2).
import { schemas } from '@herald/core';
import { Type, type Static } from 'typebox';

export const PROJECT_HANDLE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const DisplayName = Type.String({ minLength: 1, maxLength: 255, pattern: schemas.TEXT_PATTERN });
const Description = Type.String({ maxLength: 2000, pattern: schemas.TEXT_PATTERN });

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
  {
    additionalProperties: false,
    title: 'Project',
    description: 'A project of the organization.',
    examples: [
      {
        id: 'web',
        orgId: 'default',
        displayName: 'Web',
        description: 'The public web shop',
        createdBy: 'tok_8d3f2a1c9b7e4d6f',
        updatedBy: 'tok_8d3f2a1c9b7e4d6f',
        createdAt: '2025-01-31T12:00:00.000Z',
        updatedAt: '2025-01-31T12:00:00.000Z',
      },
    ],
  },
);
export type Project = Static<typeof Project>;

export const ProjectCreateRequest = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: PROJECT_HANDLE_PATTERN, description: 'Generated (UUID) when omitted.' })),
    displayName: DisplayName,
    description: Type.Optional(Description),
  },
  {
    additionalProperties: false,
    title: 'ProjectCreateRequest',
    description: 'A project to create.',
    examples: [{ id: 'web', displayName: 'Web', description: 'The public web shop' }],
  },
);
export type ProjectCreateRequest = Static<typeof ProjectCreateRequest>;

export const ProjectUpdateRequest = Type.Object(
  {
    displayName: Type.Optional(DisplayName),
    description: Type.Optional(Type.String({ ...Description, description: '"" removes the description.' })),
  },
  {
    additionalProperties: false,
    title: 'ProjectUpdateRequest',
    description: 'Project update: only supplied fields change; no body changes nothing.',
    examples: [{ displayName: 'Web shop' }],
  },
);
export type ProjectUpdateRequest = Static<typeof ProjectUpdateRequest>;

export const ProjectParams = Type.Object(
  {
    org: Type.String({ minLength: 1, maxLength: 128, pattern: schemas.TEXT_PATTERN }),
    project: Type.String({ pattern: PROJECT_HANDLE_PATTERN }),
  },
  { additionalProperties: false },
);
