// Resolving a CR's secretRef, tlsSecretRef and oauth2.clientSecretRef against Secrets (pure). The value never leaves this result except
// in the request body to Herald.
import type { V1Secret } from '@kubernetes/client-node';
import type { WebhookSubscriberResource } from '../crd/types.js';
import { DEFAULT_SECRET_KEY } from './desired.js';

export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 512;

export type SecretResolution =
  | { kind: 'none' }
  | { kind: 'found'; value: string; /** uid/resourceVersion: changes whenever the Secret does. */ version: string }
  | { kind: 'missing'; message: string }
  | { kind: 'invalid'; message: string };

export function resolveSecret(resource: WebhookSubscriberResource, secret: V1Secret | undefined): SecretResolution {
  const ref = resource.spec.secretRef;
  if (!ref) return { kind: 'none' };
  const key = ref.key ?? DEFAULT_SECRET_KEY;
  const where = `Secret ${resource.metadata?.namespace ?? ''}/${ref.name}`;
  if (!secret) return { kind: 'missing', message: `${where} not found` };
  const encoded = secret.data?.[key];
  const value = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : secret.stringData?.[key];
  if (value === undefined) return { kind: 'missing', message: `${where} has no key "${key}"` };
  if (value.length < SECRET_MIN_LENGTH || value.length > SECRET_MAX_LENGTH) {
    // Only the length is reported, never the value.
    return { kind: 'invalid', message: `${where} key "${key}" must hold ${SECRET_MIN_LENGTH}-${SECRET_MAX_LENGTH} characters (has ${value.length})` };
  }
  return { kind: 'found', value, version: `${secret.metadata?.uid ?? ''}/${secret.metadata?.resourceVersion ?? ''}` };
}

/** The keys of a Secret of type kubernetes.io/tls; `ca.crt` is optional (cert-manager writes it). */
export const TLS_SECRET_KEYS = { certificate: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } as const;

export interface ClientTls {
  clientCertificate: string;
  clientKey: string;
  caBundle?: string;
}

export type TlsSecretResolution =
  | { kind: 'none' }
  | { kind: 'found'; tls: ClientTls; /** uid/resourceVersion: changes whenever the Secret does. */ version: string }
  | { kind: 'missing'; message: string };

function secretText(secret: V1Secret, key: string): string | undefined {
  const encoded = secret.data?.[key];
  const value = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : secret.stringData?.[key];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Herald checks the PEM itself (and answers a 400 naming the field); only presence is checked here. */
export function resolveTlsSecret(resource: WebhookSubscriberResource, secret: V1Secret | undefined): TlsSecretResolution {
  const ref = resource.spec.tlsSecretRef;
  if (!ref) return { kind: 'none' };
  const where = `Secret ${resource.metadata?.namespace ?? ''}/${ref.name}`;
  if (!secret) return { kind: 'missing', message: `${where} not found` };
  const clientCertificate = secretText(secret, TLS_SECRET_KEYS.certificate);
  const clientKey = secretText(secret, TLS_SECRET_KEYS.key);
  if (clientCertificate === undefined || clientKey === undefined) {
    return { kind: 'missing', message: `${where} needs the keys "${TLS_SECRET_KEYS.certificate}" and "${TLS_SECRET_KEYS.key}" (a kubernetes.io/tls Secret)` };
  }
  const caBundle = secretText(secret, TLS_SECRET_KEYS.ca);
  return {
    kind: 'found',
    tls: { clientCertificate, clientKey, ...(caBundle !== undefined ? { caBundle } : {}) },
    version: `${secret.metadata?.uid ?? ''}/${secret.metadata?.resourceVersion ?? ''}`,
  };
}

/** The key of spec.oauth2.clientSecretRef when none is given (the CRD defaults it too). */
export const DEFAULT_OAUTH2_SECRET_KEY = 'clientSecret';

export interface OAuth2Credentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  audience?: string;
  clientAuthentication?: 'basic' | 'body';
}

export type OAuth2Resolution =
  | { kind: 'none' }
  | { kind: 'found'; oauth2: OAuth2Credentials; /** uid/resourceVersion of the client secret's Secret. */ version: string }
  | { kind: 'missing'; message: string };

/** spec.oauth2 with its client secret read from the Secret; Herald checks the values (a 400 names the field). */
export function resolveOAuth2Secret(resource: WebhookSubscriberResource, secret: V1Secret | undefined): OAuth2Resolution {
  const spec = resource.spec.oauth2;
  if (!spec) return { kind: 'none' };
  const key = spec.clientSecretRef.key ?? DEFAULT_OAUTH2_SECRET_KEY;
  const where = `Secret ${resource.metadata?.namespace ?? ''}/${spec.clientSecretRef.name}`;
  if (!secret) return { kind: 'missing', message: `${where} not found` };
  // Surrounding white space is a file's trailing newline, never part of the secret.
  const clientSecret = secretText(secret, key)?.trim();
  if (clientSecret === undefined) return { kind: 'missing', message: `${where} has no key "${key}" (the OAuth2 client secret)` };
  return {
    kind: 'found',
    oauth2: {
      tokenUrl: spec.tokenUrl,
      clientId: spec.clientId,
      clientSecret,
      ...(spec.scope !== undefined ? { scope: spec.scope } : {}),
      ...(spec.audience !== undefined ? { audience: spec.audience } : {}),
      ...(spec.clientAuthentication !== undefined ? { clientAuthentication: spec.clientAuthentication } : {}),
    },
    version: `${secret.metadata?.uid ?? ''}/${secret.metadata?.resourceVersion ?? ''}`,
  };
}
