import { describe, expect, test } from 'vitest';
import { buildApiPortalBody, buildApiPortalHeaders, buildStandardBody, buildStandardHeaders, signApiPortal } from '../src/index.js';

describe('envelopes', () => {
  test('api-portal body: compact JSON, keys in the agreed order, ISO time with milliseconds', () => {
    const body = buildApiPortalBody({
      eventId: 'e1',
      eventType: 'apikey.generated',
      occurredAt: new Date(Date.UTC(2023, 10, 14, 22, 13, 20)),
      orgRefId: 'acme',
      encryptedFields: [],
      data: { keyId: 'k1' },
    });
    expect(body).toBe(
      '{"event_id":"e1","event_type":"apikey.generated","occurred_at":"2023-11-14T22:13:20.000Z","org":{"ref_id":"acme"},"encrypted_fields":[],"data":{"keyId":"k1"}}',
    );
  });

  test('standard body carries type, timestamp, id, org and aggregate', () => {
    const body = JSON.parse(
      buildStandardBody({
        eventId: 'e2',
        eventType: 'subscription.created',
        occurredAt: '2024-01-02T03:04:05.678Z',
        orgId: 'acme',
        aggregateType: 'subscription',
        aggregateId: 's-9',
        encryptedFields: ['card'],
        data: { card: { iv: 'a', tag: 'b', ciphertext: 'c' } },
      }),
    ) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'encryptedFields', 'data']);
    expect(body).toMatchObject({ type: 'subscription.created', timestamp: '2024-01-02T03:04:05.678Z', id: 'e2', encryptedFields: ['card'] });
  });
});

describe('per-key sequence', () => {
  test('present after aggregateId (standard) or org (api-portal) when given, absent otherwise', () => {
    const standard = { eventId: 'e3', eventType: 'order.created', occurredAt: '2024-01-02T03:04:05.678Z', orgId: 'acme', aggregateType: 'order', aggregateId: 'o-1', encryptedFields: [], data: {} };
    const ordered = JSON.parse(buildStandardBody({ ...standard, sequence: 7 })) as Record<string, unknown>;
    expect(Object.keys(ordered)).toEqual(['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'sequence', 'encryptedFields', 'data']);
    expect(ordered.sequence).toBe(7);
    expect(JSON.parse(buildStandardBody(standard))).not.toHaveProperty('sequence');
    const portal = { eventId: 'e1', eventType: 'a.b', occurredAt: '2024-01-02T03:04:05.678Z', orgRefId: 'acme', encryptedFields: [], data: {} };
    expect(buildApiPortalBody({ ...portal, sequence: 2 })).toBe('{"event_id":"e1","event_type":"a.b","occurred_at":"2024-01-02T03:04:05.678Z","org":{"ref_id":"acme"},"sequence":2,"encrypted_fields":[],"data":{}}');
    expect(buildApiPortalBody(portal)).not.toContain('sequence');
  });
});

describe('headers', () => {
  test('standard headers: Standard Webhooks names plus Herald extras; no signature without a secret', () => {
    const common = { eventId: 'e1', deliveryId: 'd1', attempt: 2, timestamp: 1700000000, body: '{}' };
    const signed = buildStandardHeaders({ ...common, secrets: ['a-secret-of-length'] });
    expect(signed).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'e1',
      'webhook-timestamp': '1700000000',
      'herald-delivery-id': 'd1',
      'herald-attempt': '2',
    });
    expect(signed['user-agent']).toMatch(/^Herald\//);
    expect(signed['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(buildStandardHeaders({ ...common, secrets: [] })['webhook-signature']).toBeUndefined();
  });

  test('api-portal headers: signature only when a secret is set', () => {
    const common = { eventType: 'a.b', eventId: 'e1', deliveryId: 'd1', timestamp: 1700000000, body: '{"event_id":"e1"}' };
    const signed = buildApiPortalHeaders({ ...common, secret: 'shared-secret' });
    expect(signed).toMatchObject({ 'x-api-portal-event': 'a.b', 'x-api-portal-event-id': 'e1', 'x-api-portal-delivery-id': 'd1' });
    expect(signed['x-api-portal-signature']).toBe(signApiPortal({ secret: 'shared-secret', timestamp: 1700000000, body: common.body }));
    expect(buildApiPortalHeaders(common)['x-api-portal-signature']).toBeUndefined();
  });
});
