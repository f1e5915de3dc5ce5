import { describe, expect, it } from 'vitest';
import type { Subscriber } from '../../src/api/types';
import { changedFields, createBody, EMPTY_FORM, eventsOf, formFieldOf, isEveryEvent, parseFilterText, parsePatterns, valuesOf } from '../../src/screens/subscribers/subscriber-form-model';

const stored: Subscriber = {
  id: 'billing',
  orgId: 'default',
  displayName: 'Billing',
  targetUrl: 'https://example.com/hooks',
  enabled: true,
  events: ['order.*', 'invoice.paid'],
  timeoutMs: 5000,
  hasSecret: true,
  createdBy: 'tok_1',
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-01-31T12:00:00.000Z',
};

describe('subscriber form', () => {
  it('sends only the fields that changed', () => {
    const values = valuesOf(stored);
    expect(changedFields(stored, values)).toEqual({});
    expect(changedFields(stored, { ...values, displayName: ' Billing v2 ' })).toEqual({ displayName: 'Billing v2' });
    expect(changedFields(stored, { ...values, events: 'order.*\ninvoice.paid' })).toEqual({});
    expect(changedFields(stored, { ...values, events: 'order.*', enabled: false, timeoutMs: '1000' })).toEqual({
      events: ['order.*'],
      enabled: false,
      timeoutMs: 1000,
    });
  });

  it('leaves optional fields out of a create body when empty', () => {
    expect(createBody({ ...EMPTY_FORM, displayName: 'A', targetUrl: 'https://a.example/' })).toEqual({
      displayName: 'A',
      targetUrl: 'https://a.example/',
      events: ['*'],
      enabled: true,
    });
    expect(createBody({ ...EMPTY_FORM, id: 'a', displayName: 'A', targetUrl: 'u', secret: 's'.repeat(16), timeoutMs: '250' })).toMatchObject({
      id: 'a',
      secret: 's'.repeat(16),
      timeoutMs: 250,
    });
  });

  it('sends an empty events field as ["*"] (the API refuses []), and takes [] and ["*"] as the same when editing', () => {
    expect(eventsOf(' ')).toEqual(['*']);
    expect(eventsOf('a.b')).toEqual(['a.b']);
    expect(changedFields({ ...stored, events: [] }, { ...valuesOf({ ...stored, events: [] }) })).toEqual({});
    expect(changedFields({ ...stored, events: ['*'] }, { ...valuesOf(stored), events: '' })).toEqual({});
    expect(changedFields(stored, { ...valuesOf(stored), events: '' })).toEqual({ events: ['*'] });
    expect(changedFields({ ...stored, events: [] }, { ...valuesOf(stored), events: 'a.b' })).toEqual({ events: ['a.b'] });
    expect([[], ['*'], ['a.*'], ['*', 'a.b']].map(isEveryEvent)).toEqual([true, true, false, false]);
  });

  it('splits patterns on commas, spaces and new lines', () => {
    expect(parsePatterns(' a.b, c.*\n*.d  ')).toEqual(['a.b', 'c.*', '*.d']);
  });

  it('maps API field errors to form fields', () => {
    expect(formFieldOf('events.2')).toBe('events');
    expect(formFieldOf('targetUrl')).toBe('targetUrl');
    expect(formFieldOf('body')).toBeUndefined();
  });
});

describe('subscriber form: payload filter', () => {
  const filter = { 'data.amount': { $gte: 100 } };
  it('shows a stored filter as JSON text, and sends it only when it changed; empty text removes it', () => {
    const values = valuesOf({ ...stored, filter });
    expect(JSON.parse(values.filter)).toEqual(filter);
    expect(changedFields({ ...stored, filter }, values)).toEqual({});
    expect(changedFields({ ...stored, filter }, { ...values, filter: '' })).toEqual({ filter: null });
    expect(changedFields(stored, { ...valuesOf(stored), filter: '{"type": "order.created"}' })).toEqual({ filter: { type: 'order.created' } });
    expect(changedFields(stored, valuesOf(stored))).toEqual({});
  });
  it('parses the text; what is not a JSON object is reported, and sent as text only for the API to refuse', () => {
    expect(parseFilterText('  ')).toEqual({ kind: 'none' });
    expect(parseFilterText('{"a": 1}')).toEqual({ kind: 'filter', filter: { a: 1 } });
    expect(parseFilterText('[1]')).toMatchObject({ kind: 'invalid' });
    expect(parseFilterText('{"a":')).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/^Not valid JSON/) as unknown });
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x', filter: '{"a":' }).filter).toBe('{"a":');
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x' })).not.toHaveProperty('filter');
    expect(formFieldOf('filter.data.amount.$gt')).toBe('filter');
  });
});

describe('subscriber form: egress proxy', () => {
  it('sends a name or none on create, nothing when empty; on edit only a change, null when emptied', () => {
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x', egressProxy: ' eu ' }).egressProxy).toBe('eu');
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x' })).not.toHaveProperty('egressProxy');
    const proxied: Subscriber = { ...stored, egressProxy: 'eu' };
    expect(valuesOf(proxied).egressProxy).toBe('eu');
    expect(valuesOf(stored).egressProxy).toBe('');
    expect(changedFields(proxied, valuesOf(proxied))).toEqual({});
    expect(changedFields(proxied, { ...valuesOf(proxied), egressProxy: 'none' })).toEqual({ egressProxy: 'none' });
    expect(changedFields(proxied, { ...valuesOf(proxied), egressProxy: '  ' })).toEqual({ egressProxy: null });
    expect(changedFields(stored, { ...valuesOf(stored), egressProxy: 'eu' })).toEqual({ egressProxy: 'eu' });
    expect(formFieldOf('egressProxy')).toBe('egressProxy');
  });
});

describe('subscriber form: per-key ordering', () => {
  it('sends ordering aggregate on create when ticked, and on edit only a change, none to turn it off', () => {
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x', ordered: true }).ordering).toBe('aggregate');
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://x' })).not.toHaveProperty('ordering');
    const ordered: Subscriber = { ...stored, ordering: 'aggregate' };
    expect(valuesOf(ordered).ordered).toBe(true);
    expect(changedFields(ordered, valuesOf(ordered))).toEqual({});
    expect(changedFields(ordered, { ...valuesOf(ordered), ordered: false })).toEqual({ ordering: 'none' });
    expect(changedFields(stored, { ...valuesOf(stored), ordered: true })).toEqual({ ordering: 'aggregate' });
  });

  it('client certificate: sent whole when given, removed only on request, never read back; API fields mapped to the form', () => {
    const withTls: Subscriber = {
      ...stored,
      tls: { subject: 'CN=a', issuer: 'CN=ca', fingerprint256: 'AA', notBefore: '2025-01-01T00:00:00.000Z', notAfter: '2026-01-01T00:00:00.000Z', caCertificates: 0 },
    };
    const values = valuesOf(withTls);
    expect([values.clientCertificate, values.clientKey, values.caBundle]).toEqual(['', '', '']);
    expect(changedFields(withTls, values)).toEqual({});
    expect(changedFields(withTls, { ...values, clientCertificate: 'CERT', clientKey: 'KEY' })).toEqual({ tls: { clientCertificate: 'CERT', clientKey: 'KEY' } });
    expect(changedFields(withTls, { ...values, removeClientTls: true })).toEqual({ tls: null });
    expect(changedFields(stored, { ...valuesOf(stored), removeClientTls: true })).toEqual({});
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://e.com/', clientKey: 'KEY', caBundle: 'CA' }).tls).toEqual({ clientKey: 'KEY', caBundle: 'CA' });
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://e.com/', caBundle: 'CA' }).tls).toEqual({ caBundle: 'CA' });
    expect(formFieldOf('tls.clientKey')).toBe('clientKey');
    expect(formFieldOf('tls.caBundle')).toBe('caBundle');
    expect(formFieldOf('tls')).toBe('clientCertificate');
  });

  it('oauth2: sent whole with a new secret or any changed field, removed only on request, the secret never read back; API fields mapped', () => {
    const withOAuth2: Subscriber = {
      ...stored,
      oauth2: { tokenUrl: 'https://auth.example.com/t', clientId: 'herald', clientSecretSet: true, scope: 'a b', clientAuthentication: 'basic' },
    };
    const values = valuesOf(withOAuth2);
    expect([values.oauth2TokenUrl, values.oauth2ClientId, values.oauth2ClientSecret, values.oauth2Scope, values.oauth2SecretInBody]).toEqual(['https://auth.example.com/t', 'herald', '', 'a b', false]);
    expect(changedFields(withOAuth2, values)).toEqual({});
    expect(changedFields(withOAuth2, { ...values, oauth2ClientSecret: 'new-secret' })).toEqual({
      oauth2: { tokenUrl: 'https://auth.example.com/t', clientId: 'herald', clientSecret: 'new-secret', scope: 'a b', clientAuthentication: 'basic' },
    });
    // Without the secret the API names it as missing; the form sends what it has.
    expect(changedFields(withOAuth2, { ...values, oauth2Scope: 'c' })).toEqual({ oauth2: { tokenUrl: 'https://auth.example.com/t', clientId: 'herald', scope: 'c', clientAuthentication: 'basic' } });
    expect(changedFields(withOAuth2, { ...values, removeOAuth2: true })).toEqual({ oauth2: null });
    expect(changedFields(stored, { ...valuesOf(stored), removeOAuth2: true })).toEqual({});
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://e.com/' })).not.toHaveProperty('oauth2');
    expect(createBody({ ...EMPTY_FORM, displayName: 'x', targetUrl: 'https://e.com/', oauth2TokenUrl: ' https://a/t ', oauth2ClientId: 'id', oauth2ClientSecret: 's', oauth2SecretInBody: true }).oauth2).toEqual({
      tokenUrl: 'https://a/t',
      clientId: 'id',
      clientSecret: 's',
      clientAuthentication: 'body',
    });
    expect(formFieldOf('oauth2.clientSecret')).toBe('oauth2ClientSecret');
    expect(formFieldOf('oauth2.tokenUrl')).toBe('oauth2TokenUrl');
    expect(formFieldOf('oauth2')).toBe('oauth2TokenUrl');
  });
});
