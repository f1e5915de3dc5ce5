// List+watch caches of WebhookSubscribers and Secrets (edge), on client-node's ListWatch: it lists,
// watches from the list's resourceVersion, and relists when the apiserver answers 410 Gone. On any
// other error it stops, so this wrapper restarts it with backoff (resuming from the last version).
import {
  ListWatch,
  Watch,
  type CoreV1Api,
  type CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GROUP, PLURAL, VERSION, type WebhookSubscriberResource } from '../crd/types.js';
import { retryDelayMs } from '../queue/backoff.js';
import { describeKubeError } from './errors.js';

export interface ObjectHandlers<T> {
  onUpsert(object: T): void;
  onDelete(object: T): void;
}

// Secrets the operator can never be pointed at, and that can be large (Helm keeps releases in them).
const IGNORED_SECRET_TYPES = 'type!=helm.sh/release.v1,type!=kubernetes.io/service-account-token';

export class ResilientInformer<T extends KubernetesObject> {
  private readonly listWatch: ListWatch<T>;
  private failures = 0;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private failedSinceStart = false;
  /** The first list succeeded (ListWatch reports a failed list through 'error', not by throwing). */
  synced = false;

  constructor(
    private readonly description: string,
    watch: Watch,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    handlers: ObjectHandlers<T>,
    private readonly logger: Logger,
    fieldSelector?: string,
  ) {
    this.listWatch = new ListWatch<T>(path, watch, list, false, undefined, fieldSelector);
    this.listWatch.on('add', (object) => handlers.onUpsert(object));
    this.listWatch.on('update', (object) => handlers.onUpsert(object));
    this.listWatch.on('delete', (object) => handlers.onDelete(object));
    this.listWatch.on('connect', () => {
      this.failures = 0;
    });
    this.listWatch.on('error', (error) => {
      this.failedSinceStart = true;
      this.restartLater(error);
    });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.failedSinceStart = false;
    await this.listWatch.start();
    if (!this.failedSinceStart) this.synced = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.listWatch.stop();
  }

  get(name: string, namespace: string): T | undefined {
    return this.listWatch.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.listWatch.list(namespace);
  }

  private restartLater(error: unknown): void {
    if (this.stopped) return;
    this.failures += 1;
    const delay = retryDelayMs(this.failures, { baseMs: 500, maxMs: 30_000 }, Math.random());
    this.logger.warn({ informer: this.description, err: describeKubeError(error), retryInMs: delay }, 'watch failed; restarting');
    this.restartTimer = setTimeout(() => {
      this.failedSinceStart = false;
      this.listWatch.start().then(
        () => {
          if (!this.failedSinceStart) this.synced = true;
        },
        (restartError: unknown) => this.restartLater(restartError),
      );
    }, delay);
    this.restartTimer.unref();
  }
}

export interface InformerSet {
  subscribers: ResilientInformer<WebhookSubscriberResource>[];
  secrets: ResilientInformer<V1Secret>[];
}

/** One informer per watched namespace, or one cluster-wide when `namespaces` is empty. */
export function createInformers(options: {
  kubeConfig: KubeConfig;
  customObjects: CustomObjectsApi;
  core: CoreV1Api;
  namespaces: string[];
  subscriberHandlers: ObjectHandlers<WebhookSubscriberResource>;
  secretHandlers: ObjectHandlers<V1Secret>;
  logger: Logger;
}): InformerSet {
  const watch = new Watch(options.kubeConfig);
  const scopes: (string | undefined)[] = options.namespaces.length > 0 ? options.namespaces : [undefined];
  const subscribers = scopes.map((namespace) => {
    const path = namespace ? `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}` : `/apis/${GROUP}/${VERSION}/${PLURAL}`;
    const list = async (): Promise<KubernetesListObject<WebhookSubscriberResource>> =>
      (namespace
        ? await options.customObjects.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace })
        : await options.customObjects.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as KubernetesListObject<WebhookSubscriberResource>;
    return new ResilientInformer(`${PLURAL}@${namespace ?? '*'}`, watch, path, list, options.subscriberHandlers, options.logger);
  });
  const secrets = scopes.map((namespace) => {
    const path = namespace ? `/api/v1/namespaces/${namespace}/secrets` : '/api/v1/secrets';
    const list = async (): Promise<KubernetesListObject<V1Secret>> =>
      namespace
        ? await options.core.listNamespacedSecret({ namespace, fieldSelector: IGNORED_SECRET_TYPES })
        : await options.core.listSecretForAllNamespaces({ fieldSelector: IGNORED_SECRET_TYPES });
    return new ResilientInformer(`secrets@${namespace ?? '*'}`, watch, path, list, options.secretHandlers, options.logger, IGNORED_SECRET_TYPES);
  });
  return { subscribers, secrets };
}
