// A catalog entry's example must be data its type accepts: it is published as-is by test triggers
// (`herald webhooks trigger`), and a documented sample that the API would refuse misleads readers.
import { createCatalog } from './catalog.js';
import type { EventTypeDefinition } from '../shared/event-types.js';

/**
 * Throws a ConfigError naming the type when its name or data schema is invalid, or its example is
 * not a JSON object that satisfies the data schema. Hosts call it while loading configuration.
 */
export function checkEventTypeDefinition(definition: EventTypeDefinition): void {
  // A catalog of just this type: registering checks the name, compiles the schema and checks the example.
  createCatalog([definition]);
}
