// Management API under /api/v1 (DECISIONS §2): the instance's single org and its projects. Any other
// org name — foreign or nonexistent — is answered 403 FORBIDDEN, identically.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SCOPES } from '../auth/scopes.js';
import { ForbiddenError, schemas } from '@herald/core';
import type { ProjectStore } from '../projects/project-store.js';
import { Project, ProjectCreateRequest, ProjectParams, ProjectUpdateRequest } from '../projects/schemas.js';
import { bodyErrorResponses, coreScope, errorResponses, NoContent, NoQuery, resourceLocation, type Mount } from './common.js';

export interface ManagementRouteOptions extends Mount {
  orgId: string;
  orgDisplayName: string;
  projects: ProjectStore;
}

const Org = Type.Object(
  { id: Type.String({ description: 'Handle of the organization.' }), displayName: Type.String() },
  { additionalProperties: false, title: 'Org', description: 'The organization this instance serves.', examples: [{ id: 'default', displayName: 'default' }] },
);
const OrgList = schemas.PageOf(Org, {
  title: 'OrgList',
  description: 'The organizations this instance serves: exactly one.',
  itemExample: { id: 'default', displayName: 'default' },
});
const OrgParams = Type.Object({ org: Type.String({ minLength: 1, maxLength: 128, pattern: schemas.TEXT_PATTERN }) }, { additionalProperties: false });
const ProjectList = schemas.PageOf(Project, { title: 'ProjectList', description: 'A page of projects, oldest first.' });
const ORG_TAGS = ['orgs'];
const PROJECT_TAGS = ['projects'];

export const managementRoutes: FastifyPluginAsyncTypebox<ManagementRouteOptions> = async (app, options) => {
  const { orgId, projects } = options;
  const org = { id: orgId, displayName: options.orgDisplayName };

  // Runs after authentication (registered in the parent context first), before bodies are parsed.
  app.addHook('onRequest', async (request) => {
    const params = request.params as { org?: string };
    if (params.org !== undefined && params.org !== orgId) {
      throw new ForbiddenError('Organization not accessible');
    }
  });

  app.get(
    '/orgs',
    {
      config: { authenticated: true },
      schema: {
        operationId: 'listOrgs',
        summary: 'Organizations this instance serves (exactly one)',
        tags: ORG_TAGS,
        querystring: schemas.PageQuery,
        response: { 200: OrgList, ...errorResponses() },
      },
    },
    async (request) => {
      const { limit = schemas.PAGE_LIMIT_DEFAULT, offset = 0 } = request.query;
      const list = [org].slice(offset, offset + limit);
      return { list, count: list.length, pagination: { total: 1, limit, offset } };
    },
  );

  app.get(
    '/orgs/:org',
    {
      config: { authenticated: true },
      schema: {
        operationId: 'getOrg',
        summary: 'Get the organization',
        tags: ORG_TAGS,
        params: OrgParams,
        querystring: NoQuery,
        response: { 200: Org, ...errorResponses() },
      },
    },
    async () => org,
  );

  app.get(
    '/orgs/:org/projects',
    {
      config: { scope: SCOPES.projectRead },
      schema: {
        operationId: 'listProjects',
        summary: 'List projects (oldest first)',
        tags: PROJECT_TAGS,
        params: OrgParams,
        querystring: schemas.PageQuery,
        response: { 200: ProjectList, ...errorResponses() },
      },
    },
    async (request) => {
      const { limit = schemas.PAGE_LIMIT_DEFAULT, offset = 0 } = request.query;
      return projects.list(orgId, { limit, offset });
    },
  );

  app.post(
    '/orgs/:org/projects',
    {
      config: { scope: SCOPES.projectManage, locationHeader: 201 },
      schema: {
        operationId: 'createProject',
        summary: 'Create a project',
        tags: PROJECT_TAGS,
        params: OrgParams,
        querystring: NoQuery,
        body: ProjectCreateRequest,
        response: { 201: Project, ...bodyErrorResponses(409) },
      },
    },
    async (request, reply) => {
      const project = await projects.create(coreScope(request, orgId), request.body);
      return reply.code(201).header('location', resourceLocation(options, 'orgs', orgId, 'projects', project.id)).send(project);
    },
  );

  app.get(
    '/orgs/:org/projects/:project',
    {
      config: { scope: SCOPES.projectRead },
      schema: {
        operationId: 'getProject',
        summary: 'Get a project',
        tags: PROJECT_TAGS,
        params: ProjectParams,
        querystring: NoQuery,
        response: { 200: Project, ...errorResponses(404) },
      },
    },
    async (request) => projects.get(orgId, request.params.project),
  );

  app.put(
    '/orgs/:org/projects/:project',
    {
      config: { scope: SCOPES.projectManage, optionalBody: true },
      schema: {
        operationId: 'updateProject',
        summary: 'Update a project (only supplied fields change)',
        tags: PROJECT_TAGS,
        params: ProjectParams,
        querystring: NoQuery,
        body: ProjectUpdateRequest,
        response: { 200: Project, ...bodyErrorResponses(404) },
      },
    },
    async (request) => projects.update(coreScope(request, orgId), request.params.project, request.body),
  );

  app.delete(
    '/orgs/:org/projects/:project',
    {
      config: { scope: SCOPES.projectManage },
      schema: {
        operationId: 'deleteProject',
        summary: 'Delete a project',
        tags: PROJECT_TAGS,
        params: ProjectParams,
        querystring: NoQuery,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await projects.delete(orgId, request.params.project);
      return reply.code(204).send(null);
    },
  );
};
