// Writes to the Kubernetes API on behalf of the reconciler (edge): finalizers, status, Events.
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type CustomObjectsApi } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { API_VERSION, FINALIZER, GROUP, KIND, PLURAL, VERSION, type WebhookSubscriberResource, type WebhookSubscriberStatusPatch } from '../crd/types.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type EventType = 'Normal' | 'Warning';

export interface KubeGateway {
  setFinalizers(resource: WebhookSubscriberResource, finalizers: string[]): Promise<WebhookSubscriberResource>;
  patchStatus(resource: WebhookSubscriberResource, status: WebhookSubscriberStatusPatch): Promise<void>;
  recordEvent(resource: WebhookSubscriberResource, type: EventType, reason: string, message: string): Promise<void>;
}

export function withFinalizer(resource: WebhookSubscriberResource): string[] | undefined {
  const current = resource.metadata?.finalizers ?? [];
  return current.includes(FINALIZER) ? undefined : [...current, FINALIZER];
}

export function withoutFinalizer(resource: WebhookSubscriberResource): string[] | undefined {
  const current = resource.metadata?.finalizers ?? [];
  return current.includes(FINALIZER) ? current.filter((finalizer) => finalizer !== FINALIZER) : undefined;
}

export class ApiKubeGateway implements KubeGateway {
  constructor(private readonly customObjects: CustomObjectsApi, private readonly core: CoreV1Api, private readonly component: string) {}

  async setFinalizers(resource: WebhookSubscriberResource, finalizers: string[]): Promise<WebhookSubscriberResource> {
    const { name = '', namespace = '', resourceVersion } = resource.metadata ?? {};
    // resourceVersion turns the merge patch into compare-and-swap: another writer's finalizer is never lost.
    return (await this.customObjects.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: { metadata: { finalizers, resourceVersion } } },
      mergePatch,
    )) as WebhookSubscriberResource;
  }

  async patchStatus(resource: WebhookSubscriberResource, status: WebhookSubscriberStatusPatch): Promise<void> {
    const { name = '', namespace = '' } = resource.metadata ?? {};
    await this.customObjects.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: { status } },
      mergePatch,
    );
  }

  async recordEvent(resource: WebhookSubscriberResource, type: EventType, reason: string, message: string): Promise<void> {
    const { name = '', namespace = '', uid, resourceVersion } = resource.metadata ?? {};
    const now = new Date();
    await this.core.createNamespacedEvent({
      namespace,
      body: {
        // Event names are DNS subdomains (≤ 253 characters) like the CR's own name: leave room for the suffix.
        metadata: { name: `${name.slice(0, 200).replace(/[.-]+$/, '')}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: { apiVersion: API_VERSION, kind: KIND, name, namespace, uid, resourceVersion },
        type,
        reason,
        message,
        source: { component: this.component },
        reportingComponent: this.component,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  }
}
