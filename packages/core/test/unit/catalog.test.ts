import { describe, expect, test } from 'vitest';
import { ConfigError, ValidationError } from '../../src/shared/errors.js';
import { createCatalog } from '../../src/model/catalog.js';
import { validatePublishInput } from '../../src/events/publish-validation.js';

describe('event catalog', () => {
  test('registers types with data schemas and sensitive fields', () => {
    const catalog = createCatalog([{ type: 'user.created', sensitive: ['email', 'email'] }]);
    catalog.register({ type: 'order.placed', dataSchema: { type: 'object', required: ['total'] } });
    expect(catalog.list().map((definition) => definition.type)).toEqual(['user.created', 'order.placed']);
    expect(catalog.sensitiveFieldsOf('user.created')).toEqual(['email']);
    expect(catalog.sensitiveFieldsOf('unknown.type')).toEqual([]);
    expect(catalog.dataIssues('order.placed', {})).toEqual([{ field: 'data', message: "must have required property 'total'" }]);
    expect(catalog.dataIssues('order.placed', { total: 1 })).toEqual([]);
  });

  test('a bad type or schema is a ConfigError at registration', () => {
    const catalog = createCatalog();
    expect(() => catalog.register({ type: 'NoDots' })).toThrow(ConfigError);
    expect(() => catalog.register({ type: 'a.b', dataSchema: { type: 'nonsense' } })).toThrow(/invalid data schema/);
  });
});

describe('publish input', () => {
  const catalog = createCatalog([{ type: 'user.created', sensitive: ['email'] }]);
  test('sensitive names are the catalog’s plus the caller’s, unique', () => {
    const { sensitiveNames } = validatePublishInput(
      { eventType: 'user.created', aggregateId: 'u', data: { email: 'x', phone: 'y' }, sensitive: ['phone', 'email'] },
      catalog,
    );
    expect(sensitiveNames).toEqual(['email', 'phone']);
  });
  test('reports every problem at once', () => {
    try {
      validatePublishInput({ eventType: 'bad', data: 'x', extra: 1 }, catalog);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors.map((issue) => issue.field).sort()).toEqual(['aggregateId', 'data', 'eventType', 'extra']);
    }
  });
});

test('an embedder registering a type gets its example checked too', async () => {
  const { createCatalog } = await import('../../src/model/catalog.js');
  const catalog = createCatalog();
  expect(() => catalog.register({ type: 'order.created', dataSchema: { type: 'object', required: ['id'] }, example: { total: 1 } })).toThrow(/example does not match/);
  expect(() => catalog.register({ type: 'order.created', example: [] as unknown as Record<string, unknown> })).toThrow(/example must be a JSON object/);
  expect(() => catalog.register({ type: 'order.created', dataSchema: { type: 'object', required: ['id'] }, example: { id: 'o1' } })).not.toThrow();
});
