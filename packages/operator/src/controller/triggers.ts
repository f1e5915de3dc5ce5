// Which watch events deserve a reconcile (pure). Status writes also produce watch events; reacting
// to those would loop, so only changes a reconcile depends on count.
import type { V1Secret } from '@kubernetes/client-node';
import { objectKey, type WebhookSubscriberResource } from '../crd/types.js';
import { ADOPT_ANNOTATION } from '../reconcile/reconciler.js';

export interface ResourceFingerprint {
  generation: number;
  deleting: boolean;
  hasFinalizer: boolean;
  adopt: string | undefined;
}

export function fingerprint(resource: WebhookSubscriberResource, finalizer: string): ResourceFingerprint {
  return {
    generation: resource.metadata?.generation ?? 0,
    deleting: Boolean(resource.metadata?.deletionTimestamp),
    hasFinalizer: resource.metadata?.finalizers?.includes(finalizer) ?? false,
    adopt: resource.metadata?.annotations?.[ADOPT_ANNOTATION],
  };
}

export function needsReconcile(before: ResourceFingerprint | undefined, after: ResourceFingerprint): boolean {
  if (!before) return true;
  return (
    before.generation !== after.generation ||
    before.deleting !== after.deleting ||
    // Only a removed finalizer matters: the operator adds it itself, and reacting to that
    // would reconcile every new CR twice.
    (before.hasFinalizer && !after.hasFinalizer) ||
    before.adopt !== after.adopt
  );
}

/** Keys of the WebhookSubscribers whose secretRef, tlsSecretRef or oauth2.clientSecretRef names this Secret. */
export function subscribersUsingSecret(resources: readonly WebhookSubscriberResource[], secret: V1Secret): string[] {
  const namespace = secret.metadata?.namespace;
  const name = secret.metadata?.name;
  return resources
    .filter((resource) => resource.metadata?.namespace === namespace && usesSecret(resource, name))
    .map((resource) => objectKey(namespace ?? '', resource.metadata?.name ?? ''));
}

function usesSecret(resource: WebhookSubscriberResource, name: string | undefined): boolean {
  const spec = resource.spec;
  return spec?.secretRef?.name === name || spec?.tlsSecretRef?.name === name || spec?.oauth2?.clientSecretRef?.name === name;
}
