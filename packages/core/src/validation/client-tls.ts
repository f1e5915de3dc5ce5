// Checks a subscriber's TLS client material before it is stored: the PEM parses, the key is the
// certificate's, the certificate is valid now, the CA bundle holds only certificates. Pure apart
// from parsing with node:crypto; messages never quote the key.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { CLIENT_TLS_LIMITS, type ClientTlsInput } from '../schemas/index.js';
import type { FieldIssue } from '../shared/errors.js';
import { checkFields, isPlainObject, stringCheck } from './fields.js';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** What is shown of the material (ClientTlsSummary) and kept beside the sealed key. */
export interface ClientCertificateFacts {
  /** The client certificate's facts; absent with a CA bundle alone. */
  subject?: string;
  issuer?: string;
  fingerprint256?: string;
  notBefore?: Date;
  notAfter?: Date;
  caCertificates: number;
}

/** The certificates of a PEM text, or a message when it holds anything else or one fails to parse. */
function parseCertificates(pem: string): X509Certificate[] | string {
  const blocks = pem.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return 'must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)';
  if (pem.replace(CERTIFICATE_BLOCK, '').trim() !== '') return 'must hold only PEM certificates';
  const parsed: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      parsed.push(new X509Certificate(block));
    } catch {
      return `certificate ${index + 1} is not a valid X.509 certificate`;
    }
  }
  return parsed;
}

function parseKey(pem: string): KeyObject | string {
  if (!/^\s*-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(pem)) {
    return 'must be an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)';
  }
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return 'is not a readable private key';
  }
}

const shapeChecks = {
  clientCertificate: stringCheck({ min: 1, max: CLIENT_TLS_LIMITS.certificateMaxChars }),
  clientKey: stringCheck({ min: 1, max: CLIENT_TLS_LIMITS.keyMaxChars }),
  caBundle: stringCheck({ min: 1, max: CLIENT_TLS_LIMITS.caBundleMaxChars }),
};

const NOTHING_GIVEN = 'must hold clientCertificate and clientKey (mutual TLS), a caBundle, or both';

/** Every issue of `value` as a `tls` field (names are prefixed `tls.`). */
export function clientTlsIssues(value: unknown, now: Date): FieldIssue[] {
  if (!isPlainObject(value)) return [{ field: 'tls', message: 'must be an object with clientCertificate and clientKey (mutual TLS), a caBundle, or both' }];
  const issues = checkFields(value, shapeChecks).map((issue) => ({ ...issue, field: `tls.${issue.field}` }));
  if (issues.length > 0) return issues;
  const input = value as ClientTlsInput;
  if (input.clientCertificate === undefined && input.clientKey === undefined && input.caBundle === undefined) return [{ field: 'tls', message: NOTHING_GIVEN }];
  // The certificate and its key go together: one without the other is a mistake, never half of mTLS.
  if (input.clientCertificate === undefined && input.clientKey !== undefined) issues.push({ field: 'tls.clientCertificate', message: 'is required with clientKey' });
  if (input.clientKey === undefined && input.clientCertificate !== undefined) issues.push({ field: 'tls.clientKey', message: 'is required with clientCertificate' });
  if (input.caBundle !== undefined) {
    const authorities = parseCertificates(input.caBundle);
    if (typeof authorities === 'string') issues.push({ field: 'tls.caBundle', message: authorities });
  }
  if (input.clientCertificate === undefined || input.clientKey === undefined) return issues;
  const chain = parseCertificates(input.clientCertificate);
  if (typeof chain === 'string') issues.push({ field: 'tls.clientCertificate', message: chain });
  const key = parseKey(input.clientKey);
  if (typeof key === 'string') issues.push({ field: 'tls.clientKey', message: key });
  if (typeof chain === 'string' || typeof key === 'string') return issues;
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(key)) issues.push({ field: 'tls.clientKey', message: 'is not the private key of clientCertificate' });
  const notAfter = new Date(leaf.validTo);
  const notBefore = new Date(leaf.validFrom);
  if (notAfter.getTime() <= now.getTime()) {
    issues.push({ field: 'tls.clientCertificate', message: `expired at ${notAfter.toISOString()}` });
  } else if (notBefore.getTime() > now.getTime()) {
    issues.push({ field: 'tls.clientCertificate', message: `is not valid before ${notBefore.toISOString()}` });
  }
  return issues;
}

/** The facts of material that clientTlsIssues accepted. */
export function clientCertificateFacts(input: ClientTlsInput): ClientCertificateFacts {
  const authorities = input.caBundle === undefined ? [] : parseCertificates(input.caBundle);
  const caCertificates = Array.isArray(authorities) ? authorities.length : 0;
  if (input.clientCertificate === undefined) return { caCertificates };
  const chain = parseCertificates(input.clientCertificate);
  if (typeof chain === 'string') throw new TypeError('clientCertificateFacts needs material that clientTlsIssues accepted');
  const leaf = chain[0]!;
  return {
    subject: leaf.subject.split('\n').join(', '),
    issuer: leaf.issuer.split('\n').join(', '),
    fingerprint256: leaf.fingerprint256,
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
    caCertificates,
  };
}
