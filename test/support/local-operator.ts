// The operator as the k8s tests run it: in this process, with only the chart's RBAC (its own
// kubeconfig), short leader-election timings, its log lines collected for diagnosis.
import { loadOperatorConfig, startOperator, type RunningOperator } from '@herald/operator';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { loadKubeConfig, operatorKubeconfigPath, waitFor } from './kube.js';

export interface LocalOperatorOptions {
  heraldUrl: string;
  token: string;
  /** The only namespace it watches. */
  namespace: string;
  identity: string;
  logLevel: 'info' | 'debug';
  /** Every log line, appended as it is written. */
  logs: string[];
  /** More `HERALD_OPERATOR_*` settings (e.g. a shorter resync). */
  env?: Record<string, string>;
}

/** Starts the operator and waits until it leads and its informer has synced. */
export async function startLocalOperator(options: LocalOperatorOptions): Promise<RunningOperator> {
  const config = loadOperatorConfig({
    HERALD_URL: options.heraldUrl,
    HERALD_TOKEN: options.token,
    HERALD_OPERATOR_WATCH_NAMESPACES: options.namespace,
    HERALD_OPERATOR_LEASE_NAMESPACE: 'herald-system',
    HERALD_OPERATOR_LEASE_NAME: 'herald-operator',
    HERALD_OPERATOR_IDENTITY: options.identity,
    HERALD_OPERATOR_LEASE_DURATION_SECONDS: '6',
    HERALD_OPERATOR_RENEW_DEADLINE_SECONDS: '4',
    HERALD_OPERATOR_RETRY_PERIOD_SECONDS: '1',
    HERALD_OPERATOR_HOST: '127.0.0.1',
    HERALD_OPERATOR_PORT: '0',
    ...options.env,
  }, () => '');
  const logStream = new Writable({ write(chunk: Buffer, _encoding, done) { options.logs.push(chunk.toString('utf8')); done(); } });
  const operator = await startOperator(config, loadKubeConfig(operatorKubeconfigPath()), pino({ level: options.logLevel }, logStream));
  await waitFor('operator to lead and sync', () => operator.isLeader() && operator.controller()?.synced, 30_000);
  return operator;
}
