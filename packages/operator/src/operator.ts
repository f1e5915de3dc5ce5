// Composition root: Kubernetes clients, Herald client, leader election, controller, ops endpoints.
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { OperatorConfig } from './config.js';
import { Controller } from './controller/controller.js';
import { HeraldClient } from './herald/client.js';
import { principalResolver } from './herald/principal.js';
import { startOpsServer } from './http/ops-server.js';
import { ApiKubeGateway } from './kube/gateway.js';
import { LeaderElector } from './leader/elector.js';
import { Metrics } from './metrics.js';

export interface RunningOperator {
  /** Port of /healthz, /readyz, /metrics. */
  port: number;
  isLeader(): boolean;
  /** The controller while this replica leads (tests and the benchmark wait on it). */
  controller(): Controller | undefined;
  stop(): Promise<void>;
}

export async function startOperator(config: OperatorConfig, kubeConfig: KubeConfig, logger: Logger): Promise<RunningOperator> {
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const metrics = new Metrics();
  const herald = new HeraldClient({ baseUrl: config.heraldUrl, token: config.token });
  const operatorPrincipal = principalResolver(herald, config.principal);
  const gateway = new ApiKubeGateway(customObjects, core, 'herald-operator');

  let controller: Controller | undefined;
  let transition: Promise<void> = Promise.resolve();
  const startLeading = () => {
    transition = transition.then(async () => {
      controller = new Controller({
        kubeConfig, customObjects, core, kube: gateway, herald, operatorPrincipal,
        namespaces: config.watchNamespaces, workers: config.workers, rateLimit: config.rateLimit, resyncSeconds: config.resyncSeconds, metrics, logger,
      });
      await controller.start();
      logger.info({ namespaces: config.watchNamespaces.length ? config.watchNamespaces : 'all' }, 'controller started');
    });
    return transition;
  };
  const stopLeading = () => {
    transition = transition.then(async () => {
      const running = controller;
      controller = undefined;
      await running?.stop();
    });
    return transition;
  };

  const { leaderElection } = config;
  const elector = leaderElection.enabled
    ? new LeaderElector({
        api: kubeConfig.makeApiClient(CoordinationV1Api),
        namespace: leaderElection.leaseNamespace,
        name: leaderElection.leaseName,
        identity: leaderElection.identity,
        leaseDurationSeconds: leaderElection.leaseDurationSeconds,
        renewDeadlineSeconds: leaderElection.renewDeadlineSeconds,
        retryPeriodSeconds: leaderElection.retryPeriodSeconds,
        onStartedLeading: startLeading,
        onStoppedLeading: stopLeading,
        logger,
      })
    : undefined;
  const isLeader = () => (elector ? elector.isLeader : true);
  metrics.gauge('process_resident_memory_bytes', 'Resident memory of the operator process', () => process.memoryUsage.rss());
  metrics.gauge('nodejs_heap_used_bytes', 'V8 heap in use', () => process.memoryUsage().heapUsed);
  metrics.gauge('herald_operator_leader', '1 while this replica holds the leader lease', () => (isLeader() ? 1 : 0));

  const ops = await startOpsServer(config.host, config.port, {
    healthy: () => true,
    ready: () => !isLeader() || (controller?.synced ?? false),
    metrics,
  });
  if (elector) elector.start();
  else await startLeading();
  logger.info({ port: ops.port, identity: leaderElection.identity }, 'herald-operator running');

  return {
    port: ops.port,
    isLeader,
    controller: () => controller,
    async stop() {
      if (elector) await elector.stop();
      else await stopLeading();
      await transition;
      await new Promise<void>((resolve) => ops.server.close(() => resolve()));
    },
  };
}
