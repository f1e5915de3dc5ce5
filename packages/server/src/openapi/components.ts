// Turns the shapes that carry a `title` into named components (`#/components/schemas/<title>`) of a
// generated OpenAPI document, so client generators produce named types. The TypeBox schemas stay
// the only definition: a component's body is its first use in the document (as @fastify/swagger
// rendered it), with the description and examples of the titled schema itself where one is given
// (a use may carry its own description, e.g. an error response's). Two uses of one title with
// different shapes are a programming error.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords that describe a use of a shape without changing it (a response's own description). */
const ANNOTATIONS = new Set(['title', 'description', 'examples']);
const REF_PREFIX = '#/components/schemas/';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain JSON (TypeBox keeps its own markers out of JSON). */
function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The shape without its top-level annotations, for comparing two uses of a title. */
function shapeOf(schema: JsonObject): string {
  return canonical(Object.fromEntries(Object.entries(schema).filter(([key]) => !ANNOTATIONS.has(key))));
}

export class ComponentRegistry {
  private readonly known = new Map<string, JsonObject>();
  private readonly annotations = new Map<string, JsonObject>();

  /** Takes the description and examples of every schema in `candidates` that has a string `title`. */
  constructor(candidates: Iterable<unknown>) {
    for (const candidate of candidates) {
      if (!isObject(candidate) || typeof candidate.title !== 'string') continue;
      const json = toJson(candidate) as JsonObject;
      this.annotations.set(
        candidate.title,
        Object.fromEntries(Object.entries(json).filter(([key]) => key === 'description' || key === 'examples')),
      );
    }
  }

  /**
   * Replaces every titled schema under `paths` with a `$ref` and puts the referenced components
   * (and the ones they reference) under `components.schemas`, sorted by name.
   */
  publish(document: JsonObject): JsonObject {
    const used = new Set<string>();
    const paths = this.replace(document.paths ?? {}, used, false);
    const components: JsonObject = {};
    const pending = [...used];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (name in components) continue;
      const before = new Set(used);
      components[name] = this.replace({ ...this.known.get(name)!, ...this.annotations.get(name) }, used, true);
      for (const added of used) if (!before.has(added)) pending.push(added);
    }
    const existing = isObject(document.components) ? document.components : {};
    const existingSchemas = isObject(existing.schemas) ? existing.schemas : {};
    const sorted = Object.fromEntries(Object.entries({ ...existingSchemas, ...components }).sort(([a], [b]) => a.localeCompare(b)));
    return { ...document, paths, components: { ...existing, schemas: sorted } };
  }

  private replace(node: Json, used: Set<string>, isComponentRoot: boolean): Json {
    if (Array.isArray(node)) return node.map((item) => this.replace(item, used, false));
    if (!isObject(node)) return node;
    const title = node.title;
    if (typeof title === 'string' && !isComponentRoot) {
      this.register(title, node);
      used.add(title);
      return { $ref: `${REF_PREFIX}${title}` };
    }
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      // Examples are data, not schemas: a `title` field in one must stay as it is.
      copy[key] = key === 'examples' || key === 'example' ? value : this.replace(value, used, false);
    }
    return copy;
  }

  private register(title: string, use: JsonObject): void {
    const known = this.known.get(title);
    if (!known) {
      this.known.set(title, use);
      return;
    }
    if (shapeOf(known) !== shapeOf(use)) {
      throw new Error(`OpenAPI: two different shapes are titled "${title}"; give one of them another title`);
    }
  }
}
