// Validates values against core's schemas with ajv 8 + ajv-formats, as Fastify does, so a test
// failing here means the server's serializer or validator would disagree with the service.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

export const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

export function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export function expectMatchesSchema(schema: object, value: unknown): void {
  const validate = validatorFor(schema);
  const ok = validate(value);
  expect(ok, JSON.stringify(validate.errors)).toBe(true);
}
