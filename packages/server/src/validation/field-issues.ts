// Turns TypeBox validation errors into the API's field details `{field, message}`: one readable
// entry per problem, without the noise of union branches (pure).
import type { TLocalizedValidationError } from 'typebox/error';

export interface FieldIssue {
  field: string;
  message: string;
}

function joinField(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

/** `/events/0` → `events.0`; the root is ''. */
export function fieldOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/**
 * The message a schema gives for one of its keywords (`errorMessage: {minItems: '…'}`, the ajv-errors
 * convention), found by the error's schema path (`#/properties/events`), if any.
 */
export function schemaErrorMessage(schema: unknown, schemaPath: string, keyword: string): string | undefined {
  let node: unknown = schema;
  for (const segment of schemaPath.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const messages = (node as { errorMessage?: unknown }).errorMessage;
  const message = typeof messages === 'object' && messages !== null ? (messages as Record<string, unknown>)[keyword] : undefined;
  return typeof message === 'string' ? message : undefined;
}

/** `schema`: the one the errors came from, for the messages it words itself. */
export function toFieldIssues(errors: Iterable<TLocalizedValidationError>, rootName = 'body', schema?: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const allowedByPath = new Map<string, unknown[]>();
  const unionPaths = new Set<string>();
  for (const error of errors) {
    const field = fieldOf(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        for (const name of (params.requiredProperties as string[] | undefined) ?? []) {
          issues.push({ field: joinField(field, name), message: 'is required' });
        }
        break;
      case 'additionalProperties':
        for (const name of (params.additionalProperties as string[] | undefined) ?? []) {
          issues.push({ field: joinField(field, name), message: 'is not allowed' });
        }
        break;
      case 'boolean':
        // "schema is false": the additionalProperties entry above already reports it.
        break;
      case 'const':
        allowedByPath.set(field, [...(allowedByPath.get(field) ?? []), params.allowedValue]);
        break;
      case 'enum': {
        const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
        issues.push({ field: field || rootName, message: `must be one of ${allowed.map(String).join(', ')}` });
        break;
      }
      case 'anyOf':
        unionPaths.add(field);
        break;
      default:
        issues.push({ field: field || rootName, message: schemaErrorMessage(schema, error.schemaPath, error.keyword) ?? error.message });
    }
  }
  for (const field of unionPaths) {
    const allowed = allowedByPath.get(field);
    const message = allowed && allowed.length > 0 ? `must be one of ${allowed.map(String).join(', ')}` : 'has an invalid type or value';
    if (!issues.some((issue) => issue.field === (field || rootName))) issues.push({ field: field || rootName, message });
  }
  for (const [field, allowed] of allowedByPath) {
    if (!unionPaths.has(field)) issues.push({ field: field || rootName, message: `must be ${String(allowed[0])}` });
  }
  return issues;
}
