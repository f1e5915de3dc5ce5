// Validates every response a test receives against the served OpenAPI document: the route's
// operation must document the status, and a JSON body must match that status's schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components?: { schemas?: Record<string, object> };
}

interface CompiledPath {
  pattern: RegExp;
  template: string;
}

export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: CompiledPath[];
  /** How many responses were checked against a documented schema (tests assert it grows). */
  checked = 0;

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.paths = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Returns problems (empty when valid); undefined when the path is not an operation of this document. */
  validate(method: string, path: string, status: number, body: unknown): string[] | undefined {
    const pathOnly = path.split('?')[0]!;
    const match = this.paths.find((candidate) => candidate.pattern.test(pathOnly));
    const operation = match && this.document.paths[match.template]?.[method.toLowerCase()];
    if (!match || !operation) return undefined;
    const response = operation.responses[String(status)];
    if (!response) return [`${method} ${match.template}: status ${status} is not documented`];
    const schema = response.content?.['application/json']?.schema;
    this.checked += 1;
    if (!schema) return body === undefined ? [] : [`${method} ${match.template} ${status}: documented without a body but got one`];
    const key = `${method} ${match.template} ${status}`;
    let validateFn = this.compiled.get(key);
    if (!validateFn) {
      // Response schemas refer to named components (`#/components/schemas/…`); they resolve inside this wrapper.
      validateFn = this.ajv.compile({ ...schema, components: { schemas: this.document.components?.schemas ?? {} } });
      this.compiled.set(key, validateFn);
    }
    if (validateFn(body)) return [];
    return (validateFn.errors ?? []).map((error) => `${key}: ${error.instancePath || '(root)'} ${error.message ?? ''}`);
  }
}
