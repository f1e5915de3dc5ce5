// The running controller (edge): informers feed the work queue, workers reconcile, a timer re-syncs
// everything periodically so changes made in Herald behind Kubernetes' back are put back.
import type { CoreV1Api, CustomObjectsApi, KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { FINALIZER, objectKey, splitObjectKey, type WebhookSubscriberResource } from '../crd/types.js';
import { createInformers, type InformerSet } from '../kube/informers.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { HeraldClient } from '../herald/client.js';
import type { Metrics } from '../metrics.js';
import { WorkQueue } from '../queue/work-queue.js';
import { ReconcileFailure, Reconciler } from '../reconcile/reconciler.js';
import { fingerprint, needsReconcile, subscribersUsingSecret, type ResourceFingerprint } from './triggers.js';

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  customObjects: CustomObjectsApi;
  core: CoreV1Api;
  kube: KubeGateway;
  herald: HeraldClient;
  operatorPrincipal: () => Promise<string>;
  namespaces: string[];
  workers: number;
  rateLimit: { ratePerSecond: number; burst: number };
  resyncSeconds: number;
  metrics: Metrics;
  logger: Logger;
}

export class Controller {
  private readonly queue: WorkQueue;
  private readonly informers: InformerSet;
  private readonly fingerprints = new Map<string, ResourceFingerprint>();
  private readonly reconciler: Reconciler;
  private resyncTimer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly options: ControllerOptions) {
    const { logger, metrics } = options;
    this.queue = new WorkQueue((key) => this.reconcileKey(key), {
      concurrency: options.workers,
      rateLimit: options.rateLimit,
      onError: (key, error, failures) => {
        metrics.increment('herald_operator_reconcile_total', 'Reconciles by result', { result: 'error' });
        const level = error instanceof ReconcileFailure ? 'info' : 'warn';
        logger[level]({ key, failures, err: error instanceof Error ? error.message : String(error) }, 'reconcile failed; retrying with backoff');
      },
    });
    this.informers = createInformers({
      kubeConfig: options.kubeConfig,
      customObjects: options.customObjects,
      core: options.core,
      namespaces: options.namespaces,
      subscriberHandlers: {
        onUpsert: (resource) => this.onSubscriberChanged(resource),
        onDelete: (resource) => {
          const key = objectKey(resource.metadata?.namespace ?? '', resource.metadata?.name ?? '');
          this.fingerprints.delete(key);
          this.queue.forget(key);
        },
      },
      secretHandlers: { onUpsert: (secret) => this.onSecretChanged(secret), onDelete: (secret) => this.onSecretChanged(secret) },
      logger,
    });
    this.reconciler = new Reconciler({
      lookupResource: (namespace, name) => this.findSubscriber(namespace, name),
      lookupSecret: (namespace, name) => this.findSecret(namespace, name),
      herald: options.herald,
      operatorPrincipal: options.operatorPrincipal,
      kube: options.kube,
      metrics,
      logger,
    });
    metrics.gauge('herald_operator_queue_depth', 'Keys waiting in the work queue', () => this.queue.depth);
    metrics.gauge('herald_operator_retrying_keys', 'Keys currently failing and retried with backoff', () => this.queue.retrying);
    metrics.gauge('herald_operator_subscribers', 'WebhookSubscribers in the cache', () => this.allSubscribers().length);
  }

  get synced(): boolean {
    return this.running && [...this.informers.subscribers, ...this.informers.secrets].every((informer) => informer.synced);
  }

  async start(): Promise<void> {
    this.running = true;
    // Secrets first: the first reconciles of the subscribers then find their Secrets in the cache.
    await Promise.all(this.informers.secrets.map((informer) => informer.start()));
    await Promise.all(this.informers.subscribers.map((informer) => informer.start()));
    this.resyncTimer = setInterval(() => this.resyncAll(), this.options.resyncSeconds * 1000);
    this.resyncTimer.unref();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    await Promise.all([...this.informers.subscribers, ...this.informers.secrets].map((informer) => informer.stop()));
    await this.queue.stop();
  }

  /** Resolves when the queue has drained (tests, benchmark). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  resyncAll(): void {
    for (const resource of this.allSubscribers()) {
      this.queue.add(objectKey(resource.metadata?.namespace ?? '', resource.metadata?.name ?? ''));
    }
  }

  private async reconcileKey(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const started = performance.now();
    await this.reconciler.reconcile(namespace, name);
    this.options.metrics.increment('herald_operator_reconcile_total', 'Reconciles by result', { result: 'success' });
    this.options.metrics.increment('herald_operator_reconcile_seconds_total', 'Seconds spent in successful reconciles', {}, (performance.now() - started) / 1000);
  }

  private onSubscriberChanged(resource: WebhookSubscriberResource): void {
    const key = objectKey(resource.metadata?.namespace ?? '', resource.metadata?.name ?? '');
    const next = fingerprint(resource, FINALIZER);
    const before = this.fingerprints.get(key);
    this.fingerprints.set(key, next);
    if (needsReconcile(before, next)) this.queue.add(key);
  }

  private onSecretChanged(secret: V1Secret): void {
    for (const key of subscribersUsingSecret(this.allSubscribers(), secret)) this.queue.add(key);
  }

  private allSubscribers(): WebhookSubscriberResource[] {
    return this.informers.subscribers.flatMap((informer) => [...informer.list()]);
  }

  private findSubscriber(namespace: string, name: string): WebhookSubscriberResource | undefined {
    for (const informer of this.informers.subscribers) {
      const found = informer.get(name, namespace);
      if (found) return found;
    }
    return undefined;
  }

  private findSecret(namespace: string, name: string): V1Secret | undefined {
    for (const informer of this.informers.secrets) {
      const found = informer.get(name, namespace);
      if (found) return found;
    }
    return undefined;
  }
}
