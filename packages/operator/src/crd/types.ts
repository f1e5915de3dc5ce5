// The WebhookSubscriber custom resource as the operator sees it (crds/webhooksubscribers.herald.dev.yaml).
import type { KubernetesObject } from '@kubernetes/client-node';

export const GROUP = 'herald.dev';
export const VERSION = 'v1alpha1';
export const PLURAL = 'webhooksubscribers';
export const KIND = 'WebhookSubscriber';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** Set on every CR the operator has seen, so the Herald subscriber is deleted before the CR goes. */
export const FINALIZER = 'herald.dev/subscriber-cleanup';

export interface SecretKeyReference {
  name: string;
  /** Defaulted to "secret" by the CRD. */
  key?: string;
}

export interface WebhookSubscriberSpec {
  handle?: string;
  displayName?: string;
  targetUrl: string;
  events?: string[];
  enabled?: boolean;
  timeoutMs?: number;
  maxConcurrency?: number;
  rateLimitPerSecond?: number;
  /** A configured egress proxy's name, or `none` (direct); unset: Herald's default. */
  egressProxy?: string;
  /** Payload filter, passed to Herald as is (Herald validates it). */
  filter?: Record<string, unknown>;
  /** Per-key ordering (Herald's docs/ordering.md); unset: none. */
  ordering?: 'aggregate' | 'none';
  secretRef?: SecretKeyReference;
  /** A Secret of type kubernetes.io/tls (tls.crt, tls.key, optional ca.crt): the client certificate Herald presents (mutual TLS). */
  tlsSecretRef?: { name: string };
  /** OAuth2 client credentials; the client secret comes from a Secret in the same namespace. */
  oauth2?: OAuth2Spec;
}

export interface OAuth2Spec {
  tokenUrl: string;
  clientId: string;
  /** Defaulted to key "clientSecret" by the CRD. */
  clientSecretRef: SecretKeyReference;
  scope?: string;
  audience?: string;
  clientAuthentication?: 'basic' | 'body';
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface WebhookSubscriberStatus {
  observedGeneration?: number;
  handle?: string;
  hasSecret?: boolean;
  lastSyncedAt?: string;
  secretVersion?: string;
  /** uid/resourceVersion of the TLS Secret last pushed to Herald. */
  tlsSecretVersion?: string;
  /** uid/resourceVersion of the OAuth2 client secret's Secret last pushed to Herald. */
  oauth2SecretVersion?: string;
  conditions?: Condition[];
  /** Herald disabled the subscriber by itself (auto-disable); absent while it is not. */
  autoDisabled?: AutoDisabledStatus;
}

export interface AutoDisabledStatus {
  /** When Herald disabled it (its disabledReason.at): tells one auto-disable from the next. */
  at: string;
  message: string;
  /** The spec generation when the operator first saw it: a later spec change enables it again. */
  observedGeneration: number;
}

/** A merge patch of the status: null removes a field. */
export type WebhookSubscriberStatusPatch = { [Field in keyof WebhookSubscriberStatus]: WebhookSubscriberStatus[Field] | null };

export interface WebhookSubscriberResource extends KubernetesObject {
  spec: WebhookSubscriberSpec;
  status?: WebhookSubscriberStatus;
}

/** Queue key of a namespaced object: "<namespace>/<name>". */
export function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
