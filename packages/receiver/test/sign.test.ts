import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { signApiPortal, signStandard, standardSigningKey, WebhookVerificationError } from '../src/index.js';

describe('api-portal signature', () => {
  test('matches the known answer of DECISIONS §6', () => {
    expect(signApiPortal({ secret: 'shared-secret', timestamp: 1700000000, body: '{"event_id":"e1"}' })).toBe(
      't=1700000000,v1=74d0ee938ed8d438f910c8eefa9612292ce48b661b333f859b2ddc810369cac6',
    );
  });

  test('bytes and string bodies sign alike', () => {
    const body = '{"event_id":"e1","data":{"name":"zoë"}}';
    expect(signApiPortal({ secret: 's', timestamp: 1, body: Buffer.from(body) })).toBe(signApiPortal({ secret: 's', timestamp: 1, body }));
  });
});

describe('standard signature', () => {
  const whsec = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

  test('a whsec_ secret keys the HMAC with its base64-decoded bytes', () => {
    expect(standardSigningKey(whsec).toString()).toBe('0123456789abcdef0123456789abcdef');
    expect(standardSigningKey('plain passphrase here').toString()).toBe('plain passphrase here');
  });

  test('a malformed whsec_ secret is refused with a typed error', () => {
    expect(() => standardSigningKey('whsec_!!!')).toThrowError(WebhookVerificationError);
  });

  test('agrees with the standardwebhooks package for whsec_ secrets', () => {
    const body = '{"type":"apikey.generated","data":{"a":1}}';
    const ours = signStandard({ id: 'msg_1', timestamp: 1700000000, body, secrets: [whsec] });
    const theirs = new Webhook(whsec).sign('msg_1', new Date(1700000000 * 1000), body);
    expect(ours).toBe(theirs);
  });

  test('agrees with the standardwebhooks package (raw format) for plain secrets', () => {
    const body = '{"x":true}';
    const secret = 'a-plain-secret-of-some-length';
    const ours = signStandard({ id: 'e2', timestamp: 1700000123, body, secrets: [secret] });
    const theirs = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).sign('e2', new Date(1700000123 * 1000), body);
    expect(ours).toBe(theirs);
  });

  test('several secrets give space-separated signatures, current first', () => {
    const both = signStandard({ id: 'e', timestamp: 5, body: '{}', secrets: ['current-secret-1', 'previous-secret-2'] });
    const [first, second, ...rest] = both.split(' ');
    expect(rest).toEqual([]);
    expect(first).toBe(signStandard({ id: 'e', timestamp: 5, body: '{}', secrets: ['current-secret-1'] }));
    expect(second).toBe(signStandard({ id: 'e', timestamp: 5, body: '{}', secrets: ['previous-secret-2'] }));
  });
});
