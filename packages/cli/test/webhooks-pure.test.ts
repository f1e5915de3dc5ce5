import { describe, expect, it } from 'vitest';
import { parseEventStatus, parsePageNumber, resourcePath, subscriberRequestFromFlags } from '../src/webhooks/subscriber-request.js';
import { parseSavedHeaders } from '../src/webhooks/verify-input.js';
import { checkIdempotencyKey, checkSensitiveFields, parseEventData, publishEventBody } from '../src/webhooks/event-request.js';
import { paginationSummary, recordRows, shownColumns, tableRows } from '../src/ui/cells.js';
import { orgHandles } from '../src/commands/org-handles.js';
import { describeHttpError } from '../src/http/client.js';

describe('subscriberRequestFromFlags', () => {
  it('maps flags to WebhookSubscriberRequest fields, typed', () => {
    expect(
      subscriberRequestFromFlags({ id: 'billing', name: 'Billing', url: 'https://b/h', events: ['apikey.*,subscription.created', ' x.y '], enabled: 'false', timeoutMs: '2500', secret: 's' }),
    ).toStrictEqual({ id: 'billing', displayName: 'Billing', targetUrl: 'https://b/h', events: ['apikey.*', 'subscription.created', 'x.y'], enabled: false, timeoutMs: 2500, secret: 's' });
  });
  it('includes only the fields given (update keeps the rest) and lets flags override a base body', () => {
    expect(subscriberRequestFromFlags({ events: [], enabled: 'true' })).toStrictEqual({ enabled: true });
    expect(subscriberRequestFromFlags({ events: [], name: 'New' }, { displayName: 'Old', targetUrl: 'https://t' })).toStrictEqual({ displayName: 'New', targetUrl: 'https://t' });
  });
  it('sends --filter as a JSON object, and none as null (removal)', () => {
    expect(subscriberRequestFromFlags({ events: [], filter: '{"data.amount":{"$gte":100}}' })).toStrictEqual({ filter: { 'data.amount': { $gte: 100 } } });
    expect(subscriberRequestFromFlags({ events: [], filter: 'none' })).toStrictEqual({ filter: null });
    expect(() => subscriberRequestFromFlags({ events: [], filter: '{"data.amount":' })).toThrow('--filter is not valid JSON');
    expect(() => subscriberRequestFromFlags({ events: [], filter: '[1]' })).toThrow('--filter must be a JSON object');
  });
  it('sends --ordering aggregate or none, and refuses anything else', () => {
    expect(subscriberRequestFromFlags({ events: [], ordering: 'aggregate' })).toStrictEqual({ ordering: 'aggregate' });
    expect(subscriberRequestFromFlags({ events: [], ordering: 'none' })).toStrictEqual({ ordering: 'none' });
    expect(() => subscriberRequestFromFlags({ events: [], ordering: 'fifo' })).toThrow('--ordering must be aggregate or none');
  });
  it('sends --egress-proxy as a name, none as none, default as null; refuses URLs and bad names', () => {
    expect(subscriberRequestFromFlags({ events: [], egressProxy: 'eu-1' })).toStrictEqual({ egressProxy: 'eu-1' });
    expect(subscriberRequestFromFlags({ events: [], egressProxy: 'none' })).toStrictEqual({ egressProxy: 'none' });
    expect(subscriberRequestFromFlags({ events: [], egressProxy: 'default' })).toStrictEqual({ egressProxy: null });
    for (const bad of ['http://proxy:3128', 'EU', '-eu', '', 'a'.repeat(64)]) {
      expect(() => subscriberRequestFromFlags({ events: [], egressProxy: bad })).toThrow('--egress-proxy must be the name of an egress proxy configured on the server, none or default');
    }
  });
  it('rejects bad values', () => {
    expect(() => subscriberRequestFromFlags({ events: [], enabled: 'yes' })).toThrow('--enabled must be true or false');
    expect(() => subscriberRequestFromFlags({ events: [' , '] })).toThrow("--event needs a pattern; '*' means every event");
    expect(subscriberRequestFromFlags({ events: ['*'] })).toStrictEqual({ events: ['*'] });
    expect(() => subscriberRequestFromFlags({ events: [], timeoutMs: '1.5' })).toThrow('--timeout-ms must be a whole number');
  });
});

describe('small validators', () => {
  it('checks event statuses, page numbers and encodes ids', () => {
    expect(parseEventStatus('failed')).toBe('FAILED');
    expect(() => parseEventStatus('DONE')).toThrow('--status must be one of PENDING, DISPATCHED, ALL_DELIVERED, FAILED');
    expect(parsePageNumber('10', '--limit')).toBe('10');
    expect(() => parsePageNumber('-1', '--limit')).toThrow('--limit must be a non-negative integer');
    expect(resourcePath('webhook-subscribers', 'a/b', '/deliveries')).toBe('/api/v0.9/webhook-subscribers/a%2Fb/deliveries');
    expect(resourcePath('webhook-events', '..', '/redeliver')).toBe('/api/v0.9/webhook-events/%2E%2E/redeliver');
  });
});

describe('events send input', () => {
  it('accepts a JSON object as --data and names what is wrong otherwise', () => {
    expect(parseEventData(' {"a":[1,{"b":null}]} ')).toStrictEqual({ a: [1, { b: null }] });
    expect(() => parseEventData('{"a":}')).toThrow(/^--data is not valid JSON: /);
    expect(() => parseEventData("{'a':1}")).toThrow('--data is not valid JSON');
    expect(() => parseEventData('"text"')).toThrow('--data must be a JSON object, got a string');
    expect(() => parseEventData('42')).toThrow('got a number');
    expect(() => parseEventData('[]')).toThrow('got an array');
  });

  it('requires each --sensitive name to be a top-level field of --data', () => {
    expect(() => checkSensitiveFields({ token: 'x', nested: { key: 1 } }, ['token', 'nested'])).not.toThrow();
    expect(() => checkSensitiveFields({ nested: { key: 1 } }, ['key'])).toThrow('--sensitive key: --data has no top-level field "key"');
    expect(() => checkSensitiveFields({}, ['toString'])).toThrow('no top-level field "toString"');
    expect(() => checkSensitiveFields({ a: 1 }, [''])).toThrow('--sensitive needs a field name');
  });

  it('accepts an Idempotency-Key the server takes and a header can carry', () => {
    expect(() => checkIdempotencyKey('order-42 paid')).not.toThrow();
    expect(() => checkIdempotencyKey('')).toThrow('--idempotency-key must be 1 to 255 characters, got 0');
    expect(() => checkIdempotencyKey('k'.repeat(256))).toThrow('got 256');
    expect(() => checkIdempotencyKey('a\nb')).toThrow('control characters');
    expect(() => checkIdempotencyKey(' padded')).toThrow('leading or trailing spaces');
  });

  it('builds the body with data exactly as written', () => {
    const dataText = '{ "id": 12345678901234567890, "x": 1.50 }\n';
    expect(publishEventBody({ eventType: 'order.paid', aggregateId: 'o"1', dataText, sensitive: [] })).toBe(
      '{"eventType":"order.paid","aggregateId":"o\\"1","data":{ "id": 12345678901234567890, "x": 1.50 }}',
    );
    expect(JSON.parse(publishEventBody({ eventType: 'a.b', aggregateId: 'x', dataText: '{}', sensitive: ['t', 'u'] }))).toStrictEqual({ eventType: 'a.b', aggregateId: 'x', data: {}, sensitive: ['t', 'u'] });
  });
});

describe('parseSavedHeaders', () => {
  it('reads header lines (skipping a request line) and JSON objects, lowercasing names', () => {
    expect(parseSavedHeaders('POST /hooks HTTP/1.1\r\nWebhook-Id: e1\r\nwebhook-timestamp: 17\r\n\r\n', 'h.txt')).toStrictEqual({ 'webhook-id': 'e1', 'webhook-timestamp': '17' });
    expect(parseSavedHeaders('{"X-Api-Portal-Signature":"t=1,v1=ab"}', 'h.json')).toStrictEqual({ 'x-api-portal-signature': 't=1,v1=ab' });
    expect(() => parseSavedHeaders('garbage', 'h.txt')).toThrow('h.txt: invalid header line "garbage"');
  });
});

describe('table cells', () => {
  it('turns list responses into rows, with arrays joined and missing values as -', () => {
    const data = { list: [{ id: 'a', events: ['x.*', 'y.z'], meta: { n: 1 } }, { id: 'b', events: [] }], count: 2, pagination: { total: 7, limit: 2, offset: 2 } };
    const columns = [{ header: 'ID', path: 'id' }, { header: 'EVENTS', path: 'events' }, { header: 'N', path: 'meta.n' }];
    expect(tableRows(data, columns)).toStrictEqual([['a', 'x.*, y.z', '1'], ['b', '-', '-']]);
    expect(paginationSummary(data)).toBe('3–4 of 7');
    expect(tableRows({ list: [{ deliveries: [{}, {}] }] }, [{ header: 'D', path: 'deliveries.length' }])).toStrictEqual([['2']]);
  });
  it('draws an optional column only when some row has a value in it', () => {
    const columns = [{ header: 'ID', path: 'id' }, { header: 'SEQ', path: 'sequence', optional: true }];
    expect(shownColumns({ list: [{ id: 'a' }, { id: 'b', sequence: null }] }, columns).map((column) => column.header)).toStrictEqual(['ID']);
    const ordered = { list: [{ id: 'a', sequence: 2 }, { id: 'b' }] };
    expect(shownColumns(ordered, columns).map((column) => column.header)).toStrictEqual(['ID', 'SEQ']);
    expect(tableRows(ordered, shownColumns(ordered, columns))).toStrictEqual([['a', '2'], ['b', '-']]);
  });
  it('turns a resource into key/value rows', () => {
    expect(recordRows({ id: 'a', enabled: true, deliveries: [{ id: 1 }] })).toStrictEqual([['id', 'a'], ['enabled', 'true'], ['deliveries', '[{"id":1}]']]);
  });
});

describe('orgHandles and describeHttpError', () => {
  it('extracts org handles from a list', () => {
    expect(orgHandles({ list: [{ id: 'acme' }, { handle: 'beta' }, 5] })).toStrictEqual(['acme', 'beta']);
    expect(orgHandles([{ name: 'solo' }])).toStrictEqual(['solo']);
  });
  it('describes both error shapes', () => {
    expect(describeHttpError(400, Buffer.from('{"status":"error","code":"MISSING_REQUIRED_PARAMETER","message":"bad","errors":[{"field":"targetUrl","message":"required"}]}'))).toBe(
      'HTTP 400 MISSING_REQUIRED_PARAMETER: bad\n  targetUrl: required',
    );
    expect(describeHttpError(400, Buffer.from('{"message":"fields in the payload are missing or invalid"}'))).toBe('HTTP 400: fields in the payload are missing or invalid');
    expect(describeHttpError(502, Buffer.from('Bad gateway'))).toBe('HTTP 502: Bad gateway');
  });
});
