// Bodies whose array's items are checked one at a time by their route: in a batch, an invalid item
// is answered in its own result instead of refusing the request. The route's schema still states
// the item's shape (OpenAPI documents it); the body is validated with the array's items left open
// (the request's own shape, the array's length), and the route checks each item against the item
// schema with the checks a body gets (validator-compiler.ts jsonValueCheck).
import type { FastifySchemaCompiler } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import { jsonValueCheck, typeboxValidatorCompiler } from './validator-compiler.js';

/** The object schema with `property`'s items accepted as any value; its length bounds and messages kept. */
export function withOpenItems(schema: TObject, property: string): TObject {
  const array = schema.properties[property] as unknown as Record<string, unknown>;
  const kept = Object.fromEntries(['minItems', 'maxItems', 'errorMessage'].flatMap((keyword) => (array[keyword] === undefined ? [] : [[keyword, array[keyword]]])));
  const { additionalProperties } = schema as unknown as { additionalProperties?: boolean };
  return Type.Object({ ...schema.properties, [property]: Type.Array(Type.Unknown(), kept) }, { additionalProperties: additionalProperties ?? true });
}

/** A route's validatorCompiler: its body's `property` array is checked item by item by the route itself. */
export function perItemValidatorCompiler(property: string): FastifySchemaCompiler<TSchema> {
  return (route) => {
    if (route.httpPart !== 'body') return typeboxValidatorCompiler(route);
    const check = jsonValueCheck(withOpenItems(route.schema as TObject, property), 'body');
    return (input) => {
      // The items stand in as nulls: their text too is checked with each item, not here.
      const items = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[property] : undefined;
      const error = check(Array.isArray(items) ? { ...(input as Record<string, unknown>), [property]: items.map(() => null) } : input);
      return error === undefined ? { value: input } : { error };
    };
  };
}
