import { expect, test } from 'vitest';
import { eventFamily, newEventDocument } from '../../src/events/event-document.js';
import { splitSensitive } from '../../src/model/payload.js';

const now = new Date('2030-02-03T04:05:06.007Z');

test('records the public data only, PENDING, with defaults for aggregateType and occurredAt', () => {
  const input = { eventType: 'user.created', aggregateId: 'u1', data: { name: 'A', ssn: '123' } };
  const document = newEventDocument({
    eventId: 'e1',
    orgId: 'o',
    input,
    split: splitSensitive(input.data, ['ssn']),
    now,
    idempotencyKey: undefined,
    sealedSensitive: undefined,
  });
  expect(document).toEqual({
    _id: 'e1',
    orgId: 'o',
    eventType: 'user.created',
    aggregateType: 'user',
    aggregateId: 'u1',
    status: 'PENDING',
    occurredAt: now,
    createdAt: now,
    updatedAt: now,
    data: '{"name":"A"}',
    sensitiveFields: ['ssn'],
    subscriberIds: [],
    deliveryCount: 0,
    openDeliveries: 0,
    failedDeliveries: 0,
  });
  expect(JSON.stringify(document)).not.toContain('123');
});

test('keeps a given aggregateType, occurredAt, idempotency key and sealed values', () => {
  const sealed = { keyId: 'k', iv: 'i', tag: 't', ciphertext: 'c' };
  const document = newEventDocument({
    eventId: 'e2',
    orgId: 'o',
    input: { eventType: 'a.b', aggregateType: 'thing', aggregateId: 'x', data: {}, occurredAt: '2029-12-31T23:00:00+01:00' },
    split: { publicData: {}, sensitiveValues: {} },
    now,
    idempotencyKey: 'key',
    sealedSensitive: sealed,
  });
  expect(document).toMatchObject({
    aggregateType: 'thing',
    occurredAt: new Date('2029-12-31T22:00:00.000Z'),
    idempotencyKey: 'key',
    sealedSensitive: sealed,
  });
  expect(eventFamily('billing.paid')).toBe('billing');
});
