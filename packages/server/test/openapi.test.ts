// The served OpenAPI documents as client generators read them: valid OpenAPI 3.1 with no errors
// (@readme/openapi-parser: the specification's schema plus its semantic checks), named component
// schemas whose examples are valid, per-operation security naming the scopes the auth layer
// enforces, and an optional body where an absent one is accepted.
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean; content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { description?: string; examples?: unknown[] }> };
}

let t: TestHost;
const documents: Record<string, Document> = {};

function operations(document: Document): Map<string, Operation> {
  return new Map(Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => [operation.operationId, operation] as const)));
}

beforeAll(async () => {
  t = await startTestHost();
  for (const prefix of ['/api/v0.9', '/api/v1']) {
    const response = await fetch(`${t.host.url}${prefix}/openapi.json`);
    expect(response.status).toBe(200);
    documents[prefix] = (await response.json()) as Document;
  }
});
afterAll(async () => {
  await t?.close();
});

describe.each(['/api/v0.9', '/api/v1'])('%s/openapi.json', (prefix) => {
  it('is a valid OpenAPI 3.1 document: no errors, no warnings', async () => {
    // validate() resolves and rewrites the document it is given; it gets a copy.
    const result = await validate(structuredClone(documents[prefix]) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.warnings).toEqual([]);
  });

  it('the check does find errors: a dangling $ref and a malformed requestBody are reported', async () => {
    const broken = structuredClone(documents[prefix]) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const [operation] = Object.values(Object.values(broken.paths)[0]!);
    operation!.requestBody = { required: 'no', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } };
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });

  it('publishes every titled shape as a component with a description, and its examples match it', () => {
    const document = documents[prefix]!;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      expect(schema.description, name).toBeTypeOf('string');
      const check = ajv.compile({ $ref: `#/components/schemas/${name}`, components: document.components });
      for (const example of schema.examples ?? []) {
        expect(check(example), `${name}: ${JSON.stringify(check.errors)}`).toBe(true);
      }
    }
    // Nothing is described twice: the documented bodies refer to the components.
    const text = JSON.stringify(document.paths);
    expect(text).not.toMatch(/"title":/);
  });
});

describe('named components', () => {
  it('the webhook API uses the spec\'s names', () => {
    const document = documents['/api/v0.9']!;
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['WebhookSubscriberRequest', 'WebhookSubscriberResponseSchema', 'WebhookEvent', 'WebhookEventType', 'WebhookEventTypeList', 'Pagination', 'ErrorResponse']),
    );
    const byId = operations(document);
    expect(byId.get('updateWebhookSubscriber')!.requestBody!.content['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/WebhookSubscriberRequest',
    });
    expect(byId.get('getWebhookSubscriber')!.responses['200']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/WebhookSubscriberResponseSchema',
    });
    expect(byId.get('getWebhookSubscriber')!.responses['404']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/ErrorResponse',
    });
    expect(byId.get('listWebhookEvents')!.responses['200']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/WebhookEventList',
    });
  });
});

describe('batch publish', () => {
  it('documents its request, result and limits with examples under named components', () => {
    const document = documents['/api/v0.9']!;
    const operation = operations(document).get('publishWebhookEventBatch')! as Operation & { description: string };
    expect(operation.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/PublishWebhookEventBatchRequest' });
    expect(operation.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/PublishWebhookEventBatchResult' });
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '413', '415', '500', '503']);
    expect(operation.description).toMatch(/1000 events and 1 MiB of body, whichever comes first/);
    const request = document.components.schemas.PublishWebhookEventBatchRequest as { properties: { events: { maxItems: number; minItems: number; items: unknown } }; examples: unknown[] };
    expect(request.properties.events).toMatchObject({ minItems: 1, maxItems: 1000, items: { $ref: '#/components/schemas/PublishWebhookEventBatchItem' } });
    expect(request.examples.length).toBeGreaterThan(0);
    for (const name of ['PublishWebhookEventBatchItem', 'PublishWebhookEventBatchResult', 'PublishWebhookEventBatchAccepted', 'PublishWebhookEventBatchRefused']) {
      expect(document.components.schemas[name]?.examples?.length, name).toBeGreaterThan(0);
    }
  });
});

describe('request bodies', () => {
  it('PUT bodies are optional (an absent body changes nothing); POST bodies are required', () => {
    const webhooks = operations(documents['/api/v0.9']!);
    const management = operations(documents['/api/v1']!);
    expect(webhooks.get('updateWebhookSubscriber')!.requestBody!.required).toBe(false);
    expect(management.get('updateProject')!.requestBody!.required).toBe(false);
    expect(webhooks.get('createWebhookSubscriber')!.requestBody!.required).toBe(true);
    expect(webhooks.get('publishWebhookEvent')!.requestBody!.required).toBe(true);
    expect(webhooks.get('publishWebhookEventBatch')!.requestBody!.required).toBe(true);
    expect(JSON.stringify(documents)).not.toContain('x-herald-optional-body');
  });

  it('every string a request can carry in its body, path or query states what it accepts: a pattern (the NUL rule at least), a format or values', () => {
    const unstated: string[] = [];
    for (const [prefix, document] of Object.entries(documents)) {
      const components = (document.components.schemas ?? {}) as Record<string, unknown>;
      const visit = (schema: unknown, where: string, seen: Set<unknown>): void => {
        if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
        const node = schema as Record<string, unknown>;
        if (typeof node.$ref === 'string') return visit(components[node.$ref.split('/').pop()!], where, new Set([...seen, schema]));
        if (node.type === 'string' && node.pattern === undefined && node.format === undefined && node.enum === undefined && node.const === undefined) unstated.push(where);
        for (const [key, value] of Object.entries(node)) {
          if (key === 'examples' || key === 'default') continue;
          if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${where}.${key}[${index}]`, seen));
          else if (value && typeof value === 'object') visit(value, key === 'properties' ? where : `${where}.${key}`, seen);
        }
      };
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item) as Array<[string, Operation & { parameters?: Array<{ in: string; name: string; schema: unknown }> }]>) {
          const at = `${prefix} ${method.toUpperCase()} ${path}`;
          for (const content of Object.values(operation.requestBody?.content ?? {})) visit(content.schema, `${at} body`, new Set());
          for (const parameter of operation.parameters ?? []) {
            // A header cannot carry NUL: HTTP parsers refuse it before any route sees it.
            if (parameter.in !== 'header') visit(parameter.schema, `${at} ${parameter.in} ${parameter.name}`, new Set());
          }
        }
      }
    }
    expect(unstated).toEqual([]);
  });
});

describe('security', () => {
  const anyOf = (...scopes: string[]) => scopes.map((scope) => ({ bearerAuth: [scope] }));

  it.each([
    ['createWebhookSubscriber', anyOf('dp:webhook_subscriber:create', 'dp:webhook_subscriber:manage')],
    ['listWebhookSubscribers', anyOf('dp:webhook_subscriber:read', 'dp:webhook_subscriber:manage')],
    ['getWebhookSubscriber', anyOf('dp:webhook_subscriber:read', 'dp:webhook_subscriber:manage')],
    ['updateWebhookSubscriber', anyOf('dp:webhook_subscriber:update', 'dp:webhook_subscriber:manage')],
    ['deleteWebhookSubscriber', anyOf('dp:webhook_subscriber:delete', 'dp:webhook_subscriber:manage')],
    ['listWebhookSubscriberDeliveries', anyOf('dp:webhook_subscriber:read', 'dp:webhook_subscriber:manage')],
    ['listWebhookEvents', anyOf('dp:event:read')],
    ['getWebhookEvent', anyOf('dp:event:read')],
    ['publishWebhookEvent', anyOf('dp:event:publish')],
    ['publishWebhookEventBatch', anyOf('dp:event:publish')],
    ['redeliverWebhookEvent', anyOf('dp:delivery:manage')],
    ['retryWebhookDelivery', anyOf('dp:delivery:manage')],
    ['listWebhookEventTypes', anyOf('dp:event:read')],
    ['getWebhookEventType', anyOf('dp:event:read')],
  ])('%s names the scopes that grant it', (operationId, security) => {
    expect(operations(documents['/api/v0.9']!).get(operationId)!.security).toEqual(security);
  });

  it.each([
    ['listOrgs', [{ bearerAuth: [] }]],
    ['getOrg', [{ bearerAuth: [] }]],
    ['getMe', [{ bearerAuth: [] }]],
    ['listProjects', anyOf('dp:project:read', 'dp:project:manage')],
    ['createProject', anyOf('dp:project:manage')],
    ['deleteProject', anyOf('dp:project:manage')],
  ])('%s names the scopes that grant it', (operationId, security) => {
    expect(operations(documents['/api/v1']!).get(operationId)!.security).toEqual(security);
  });

  it('a token with only the documented scope is let through', async () => {
    const { token } = await t.createToken(['dp:event:read']);
    expect((await t.api.withToken(token).get('/api/v0.9/webhook-events')).status).toBe(200);
    expect((await t.api.withToken(token).get('/api/v0.9/webhook-subscribers')).status).toBe(403);
  });
});
