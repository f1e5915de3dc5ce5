// Resolving a CR's secretRef against a Secret (pure). The value never leaves this result except
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
