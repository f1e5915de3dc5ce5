import { createSecretKey } from 'node:crypto';
import { decryptFields, deriveFieldKey } from '@herald/receiver';
import { describe, expect, test } from 'vitest';
import { idempotentEventId } from '../../src/events/ids.js';
import { buildSubscriberBody, fieldPlaintext, splitSensitive } from '../../src/model/payload.js';

const event = {
  eventId: 'e1',
  eventType: 'user.created',
  orgId: 'acme',
  aggregateType: 'user',
  aggregateId: 'u1',
  occurredAt: new Date('2030-01-01T00:00:00Z'),
};
const data = { name: 'Ann', email: 'ann@example.com', age: 40, tags: ['a'] };

describe('payload', () => {
  test('splits sensitive fields out of data', () => {
    expect(splitSensitive(data, ['email', 'tags', 'absent'])).toEqual({
      publicData: { name: 'Ann', age: 40 },
      sensitiveValues: { email: 'ann@example.com', tags: ['a'] },
    });
  });

  test('non-string values are encrypted as their JSON text', () => {
    expect(fieldPlaintext('x')).toBe('x');
    expect(fieldPlaintext(['a'])).toBe('["a"]');
    expect(fieldPlaintext(3)).toBe('3');
  });

  test('with a secret, sensitive fields are encrypted in place; the original key order is kept', () => {
    const split = splitSensitive(data, ['email', 'age']);
    const key = createSecretKey(deriveFieldKey('secret-0123456789', 'standard'));
    const { body, encryptedFields } = buildSubscriberBody({ ...event, split, order: Object.keys(data) }, key, 'standard');
    const parsed = JSON.parse(body) as { data: Record<string, unknown> };
    expect(Object.keys(parsed)).toEqual(['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'encryptedFields', 'data']);
    expect(Object.keys(parsed.data)).toEqual(['name', 'email', 'age', 'tags']);
    expect(encryptedFields).toEqual(['email', 'age']);
    expect(body).not.toContain('ann@example.com');
    expect(decryptFields(parsed.data, 'secret-0123456789', 'standard', encryptedFields)).toEqual({ ...data, age: '40' });
  });

  test('without a secret, sensitive fields are left out', () => {
    const split = splitSensitive(data, ['email']);
    const { body, encryptedFields } = buildSubscriberBody({ ...event, split, order: Object.keys(data) }, undefined, 'api-portal');
    expect(encryptedFields).toEqual([]);
    expect(JSON.parse(body)).toEqual({
      event_id: 'e1',
      event_type: 'user.created',
      occurred_at: '2030-01-01T00:00:00.000Z',
      org: { ref_id: 'acme' },
      encrypted_fields: [],
      data: { name: 'Ann', age: 40, tags: ['a'] },
    });
  });

  test('idempotent event ids are deterministic per (org, key) and UUID-shaped', () => {
    expect(idempotentEventId('o', 'k')).toBe(idempotentEventId('o', 'k'));
    expect(idempotentEventId('o', 'k')).not.toBe(idempotentEventId('o2', 'k'));
    expect(idempotentEventId('o', 'k')).not.toBe(idempotentEventId('o', 'k2'));
    expect(idempotentEventId('ab', 'c')).not.toBe(idempotentEventId('a', 'bc'));
    // Herald's own operational events never share an id with a client's key.
    expect(idempotentEventId('o', 'k', 'herald')).not.toBe(idempotentEventId('o', 'k', 'client'));
    expect(idempotentEventId('o', 'k')).toBe(idempotentEventId('o', 'k', 'client'));
    expect(idempotentEventId('o', 'k')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
