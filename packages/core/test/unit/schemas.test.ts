import { describe, expect, test } from 'vitest';
import { schemas } from '../../src/index.js';
import { expectMatchesSchema, validatorFor } from '../schema-check.js';

describe('schemas are plain JSON Schema that ajv compiles', () => {
  const exported = Object.entries(schemas).filter(
    ([, value]) => typeof value === 'object' && value !== null && ('type' in value || 'enum' in value || 'anyOf' in value),
  );
  test.each(exported)('%s compiles', (_name, schema) => {
    expect(() => validatorFor(schema as object)).not.toThrow();
  });
});

describe('subscriber request schemas', () => {
  const create = validatorFor(schemas.WebhookSubscriberCreateRequest);
  const update = validatorFor(schemas.WebhookSubscriberUpdateRequest);
  test('create requires displayName and targetUrl and refuses unknown properties', () => {
    expect(create({ displayName: 'd', targetUrl: 'https://x.test/h' })).toBe(true);
    expect(create({ targetUrl: 'https://x.test/h' })).toBe(false);
    expect(create({ displayName: 'd', targetUrl: 'https://x.test/h', extra: 1 })).toBe(false);
    expect(create({ displayName: 'd', targetUrl: 'https://x.test/h', events: ['a.*', '*.b', '*', 'a.b'] })).toBe(true);
    expect(create({ displayName: 'd', targetUrl: 'https://x.test/h', events: ['a.b.c'] })).toBe(false);
    expect(create({ displayName: 'd', targetUrl: 'https://x.test/h', id: '-bad' })).toBe(false);
  });
  test('update takes every field optionally and secret "" or 16+ chars', () => {
    expect(update({})).toBe(true);
    expect(update({ secret: '' })).toBe(true);
    expect(update({ secret: 'x'.repeat(16) })).toBe(true);
    expect(update({ secret: 'short' })).toBe(false);
    expect(update({ timeoutMs: 99 })).toBe(false);
    expect(update({ nope: true })).toBe(false);
  });
});

describe('query schemas', () => {
  test('limit 1–100 default 20, offset ≥ 0 (no schema default: it would collide with a cursor), status enum, cursor, unknown parameters refused', () => {
    const query = validatorFor(schemas.WebhookEventListQuery);
    const withDefaults: Record<string, unknown> = {};
    expect(query(withDefaults)).toBe(true);
    expect(withDefaults).toEqual({ limit: 20 });
    expect(query({ cursor: 'abc.def' })).toBe(true);
    expect(query({ cursor: 'abc' })).toBe(false);
    expect(query({ cursor: `${'a'.repeat(600)}.b` })).toBe(false);
    expect(query({ limit: 100, status: 'ALL_DELIVERED' })).toBe(true);
    expect(query({ limit: 101 })).toBe(false);
    expect(query({ limit: 0 })).toBe(false);
    expect(query({ offset: -1 })).toBe(false);
    expect(query({ status: 'DONE' })).toBe(false);
    expect(query({ page: 1 })).toBe(false);
  });
});

describe('publish and error schemas', () => {
  test('publish input', () => {
    const publish = validatorFor(schemas.PublishEventInput);
    expect(publish({ eventType: 'a.b', aggregateId: '1', data: { x: 1 }, sensitive: ['x'], occurredAt: '2030-01-01T00:00:00Z' })).toBe(true);
    expect(publish({ eventType: 'a', aggregateId: '1', data: {} })).toBe(false);
    expect(publish({ eventType: 'a.b', aggregateId: '1', data: [] })).toBe(false);
    expect(publish({ eventType: 'a.b', aggregateId: '1', data: {}, occurredAt: 'now' })).toBe(false);
  });
  test('error response', () => {
    expectMatchesSchema(schemas.ErrorResponse, { status: 'error', code: 'CONFLICT', message: 'x' });
    expectMatchesSchema(schemas.ErrorResponse, {
      status: 'error',
      code: 'MISSING_REQUIRED_PARAMETER',
      message: 'x',
      errors: [{ field: 'targetUrl', message: 'is required' }],
    });
    expect(validatorFor(schemas.ErrorResponse)({ status: 'ok', code: 'x', message: 'y' })).toBe(false);
  });
});
