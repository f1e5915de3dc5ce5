// The event catalog (DECISIONS §5): registered types, optional JSON Schema for `data`, and which
// fields are sensitive. Schemas compile once at registration so a bad schema fails early.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ConfigError, type FieldIssue } from '../shared/errors.js';
import type { EventCatalog, EventTypeDefinition } from '../shared/event-types.js';
import { isOperationalEventType, isValidEventType, OPERATIONAL_FAMILY } from '../rules/matching.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object on some loaders
// and the plugin on others; accept both. (It also resolves its own copy of ajv, hence the loose type.)
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin));

interface CatalogEntry {
  definition: EventTypeDefinition;
  validateData: ValidateFunction | undefined;
}

export interface Catalog extends EventCatalog {
  /** Field-level issues of `data` against the type's schema (empty when valid or no schema). */
  dataIssues(type: string, data: Record<string, unknown>): FieldIssue[];
  sensitiveFieldsOf(type: string): string[];
}

/**
 * A documented example is what test triggers publish: it must be a JSON object its type accepts,
 * or the catalog would advertise data the API refuses.
 */
function checkExample(definition: EventTypeDefinition, validateData: ValidateFunction | undefined): void {
  const { type, example } = definition;
  if (example === undefined) return;
  if (typeof example !== 'object' || example === null || Array.isArray(example)) throw new ConfigError(`event type "${type}": example must be a JSON object`);
  if (!validateData || validateData(example)) return;
  const details = (validateData.errors ?? []).map((error) => `example${error.instancePath.replaceAll('/', '.')} ${error.message ?? 'is invalid'}`).join('; ');
  throw new ConfigError(`event type "${type}": example does not match its dataSchema: ${details}`);
}

/** Types of the reserved family may only come from Herald itself (model/operational.ts). */
export function createCatalog(initial: readonly EventTypeDefinition[] = []): Catalog {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const entries = new Map<string, CatalogEntry>();

  const catalog: Catalog = {
    register(definition) {
      if (!isValidEventType(definition.type)) {
        throw new ConfigError(`event type "${definition.type}" must be "family.action" with segments of a-z, 0-9, _`);
      }
      let validateData: ValidateFunction | undefined;
      if (definition.dataSchema !== undefined) {
        try {
          validateData = ajv.compile(definition.dataSchema);
        } catch (error) {
          throw new ConfigError(`event type "${definition.type}" has an invalid data schema: ${(error as Error).message}`);
        }
      }
      checkExample(definition, validateData);
      const sensitive = [...new Set(definition.sensitive ?? [])];
      entries.set(definition.type, { definition: { ...definition, sensitive }, validateData });
    },
    get: (type) => entries.get(type)?.definition,
    list: () => [...entries.values()].map((entry) => entry.definition),
    dataIssues(type, data) {
      const validateData = entries.get(type)?.validateData;
      if (!validateData || validateData(data)) return [];
      return (validateData.errors ?? []).map((error) => ({
        field: `data${error.instancePath.replaceAll('/', '.')}`,
        message: error.message ?? 'is invalid',
      }));
    },
    sensitiveFieldsOf: (type) => entries.get(type)?.definition.sensitive ?? [],
  };
  for (const definition of initial) {
    if (isOperationalEventType(definition.type)) {
      throw new ConfigError(`event type "${definition.type}": the "${OPERATIONAL_FAMILY}" family is reserved for Herald's own events`);
    }
    catalog.register(definition);
  }
  return catalog;
}
