// The event catalog's words: what a type is and how the catalog is read (model/catalog.ts builds it).

export interface EventTypeDefinition {
  /** `family.action`. */
  type: string;
  /** JSON Schema (draft 2020-12 subset understood by ajv 8) that `data` must satisfy. */
  dataSchema?: Record<string, unknown>;
  /** Top-level fields of `data` that are encrypted per subscriber and never stored in plaintext. */
  sensitive?: string[];
  /** What happened when this event is published, for the people who subscribe to it. */
  description?: string;
  /**
   * A sample `data`, valid against `dataSchema` when one is given (checkEventTypeDefinition): it
   * documents the type and is what a test publish (`herald webhooks trigger`) sends.
   */
  example?: Record<string, unknown>;
}

export interface EventCatalog {
  register(definition: EventTypeDefinition): void;
  get(type: string): EventTypeDefinition | undefined;
  list(): EventTypeDefinition[];
}
