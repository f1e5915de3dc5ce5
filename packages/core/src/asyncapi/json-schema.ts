// JSON values as the AsyncAPI document holds them: plain objects, built fresh for every document.
export type JsonSchema = Record<string, unknown>;

/** A JSON Pointer reference token (RFC 6901). */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A deep copy of a JSON value, so the document never shares objects with the catalog. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
