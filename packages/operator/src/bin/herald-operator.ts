#!/usr/bin/env node
// herald-operator: syncs WebhookSubscriber resources into Herald. Configuration: environment
// variables (see docs/kubernetes.md); Kubernetes access: in-cluster service account or KUBECONFIG.
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { loadOperatorConfig, OperatorConfigError } from '../config.js';
import { startOperator } from '../operator.js';

async function main(): Promise<void> {
  const config = loadOperatorConfig(process.env, (path) => readFileSync(path, 'utf8'));
  const logger = pino({ name: 'herald-operator', level: config.logLevel, redact: ['token', 'secret', '*.secret', '*.token'] });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const operator = await startOperator(config, kubeConfig, logger);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight reconciles and releasing the lease');
    const forceExit = setTimeout(() => process.exit(1), 20_000);
    forceExit.unref();
    operator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  const message = error instanceof OperatorConfigError ? `configuration error: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`herald-operator: ${message}\n`);
  process.exit(1);
});
