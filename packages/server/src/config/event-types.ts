// The configured event catalog as core's definitions, and the checks TypeBox cannot express (a
// compilable data schema, an example that satisfies it), reported like every other config problem.
import { checkEventTypeDefinition, type EventTypeDefinition } from '@herald/core';
import type { HostConfig } from './schema.js';

export function eventTypeDefinitions(config: Pick<HostConfig, 'eventTypes'>): EventTypeDefinition[] {
  // The schema admits any JSON object as a data schema or example; TypeBox infers them as `object`.
  return config.eventTypes.map(({ dataSchema, example, ...definition }) => ({
    ...definition,
    ...(dataSchema ? { dataSchema: dataSchema as Record<string, unknown> } : {}),
    ...(example ? { example: example as Record<string, unknown> } : {}),
  }));
}

export function eventTypeProblems(config: Pick<HostConfig, 'eventTypes'>): string[] {
  return eventTypeDefinitions(config).flatMap((definition, index) => {
    try {
      checkEventTypeDefinition(definition);
      return [];
    } catch (error) {
      return [`eventTypes.${index}: ${(error as Error).message}`];
    }
  });
}
