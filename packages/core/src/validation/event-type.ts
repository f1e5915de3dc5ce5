// A catalog entry's example must be data its type accepts: it is published as-is by test triggers
// (`herald webhooks trigger`), and a documented sample that the API would refuse misleads readers.
import { ConfigError } from '../errors/index.js';
import { createCatalog } from '../events/catalog.js';
import type { EventTypeDefinition } from '../types.js';
import { isPlainObject } from './fields.js';

/**
 * Throws a ConfigError naming the type when its name or data schema is invalid, or its example is
 * not a JSON object that satisfies the data schema. Hosts call it while loading configuration.
 */
export function checkEventTypeDefinition(definition: EventTypeDefinition): void {
  // A catalog of just this type: the very rules and schema compiler publishing uses.
  const catalog = createCatalog([definition]);
  const { type, example } = definition;
  if (example === undefined) return;
  if (!isPlainObject(example)) throw new ConfigError(`event type "${type}": example must be a JSON object`);
  const issues = catalog.dataIssues(type, example);
  if (issues.length === 0) return;
  const details = issues.map((issue) => `${issue.field.replace(/^data/, 'example')} ${issue.message}`).join('; ');
  throw new ConfigError(`event type "${type}": example does not match its dataSchema: ${details}`);
}
