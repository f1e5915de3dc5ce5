// `--client-cert`, `--client-key`, `--ca-bundle` and `--no-client-cert` of `webhooks subscribers
// create|update`, run as the built `herald` against the real host (engine off: nothing is delivered).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFactory, type CertificateFactory } from '../../../test/support/certificates.js';
import { realHostSuite } from './support/cli-suite.js';

const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;
let certs: CertificateFactory;
let files: { cert: string; key: string; otherKey: string; ca: string; notPem: string };

beforeAll(() => {
  certs = certificateFactory();
  const ca = certs.authority('client CA');
  const client = certs.leaf('cli-client', ca);
  const other = certs.leaf('other', ca);
  const directory = cli.host.dataDir;
  const write = (name: string, text: string) => {
    const path = join(directory, name);
    writeFileSync(path, text);
    return path;
  };
  files = {
    cert: write('client.crt', client.cert),
    key: write('client.key', client.key),
    otherKey: write('other.key', other.key),
    ca: write('ca.crt', ca.cert),
    notPem: write('notes.txt', 'hello'),
  };
});
afterAll(() => certs?.dispose());

describe('webhooks subscribers --client-cert against the real host', () => {
  it('create sets a client certificate: the answer shows its subject, never the key; --no-client-cert removes it', async () => {
    const created = await herald(['webhooks', 'subscribers', 'create', '--id', 'mtls', '--name', 'mTLS', '--url', 'https://example.com/hook',
      '--client-cert', files.cert, '--client-key', files.key, '--ca-bundle', files.ca, '--json']);
    expect([created.code, created.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(created.text)).toMatchObject({ id: 'mtls', tls: { subject: 'CN=cli-client', issuer: 'CN=client CA', caCertificates: 1 } });
    expect(created.text).not.toContain('PRIVATE KEY');

    const removed = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--no-client-cert', '--json']);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.text)).not.toHaveProperty('tls');
  });

  it('a certificate without its key, or removal together with a certificate, is refused before anything is sent', async () => {
    const alone = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--client-cert', files.cert]);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toContain('--client-cert and --client-key go together');
    const caOnly = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--ca-bundle', files.ca, '--json']);
    expect([caOnly.code, caOnly.stderr]).toStrictEqual([0, '']);
    expect(JSON.parse(caOnly.text).tls).toEqual({ caCertificates: 1 });
    const both = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--no-client-cert', '--client-cert', files.cert, '--client-key', files.key]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--no-client-cert cannot be combined');
  });

  it("the server's 400 names the field: a key of another certificate, a file that is not PEM; a missing file is named", async () => {
    const mismatch = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--client-cert', files.cert, '--client-key', files.otherKey]);
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.stderr).toContain('tls.clientKey');
    expect(mismatch.stderr).not.toContain('PRIVATE KEY');
    const notPem = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--client-cert', files.notPem, '--client-key', files.key]);
    expect(notPem.stderr).toContain('tls.clientCertificate');
    const missing = await herald(['webhooks', 'subscribers', 'update', 'mtls', '--client-cert', join(cli.host.dataDir, 'nope.crt'), '--client-key', files.key]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--client-cert: cannot read');
  });
});
