// Leader election loop over a Lease (edge). Decisions come from lease-decision.ts.
import { ApiException, V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { describeKubeError as describe } from '../kube/errors.js';
import { decideLease, releasedRecord, type LeaseRecord } from './lease-decision.js';

export interface LeaderElectorOptions {
  api: CoordinationV1Api;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds: number;
  /** A leader that could not renew for this long steps down (must be < lease duration). */
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void | Promise<void>;
  logger: Logger;
}

/** MicroTime fields come back as strings (client-node does not deserialize that type), or Dates. */
function timeText(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : undefined;
}

function toRecord(lease: V1Lease | undefined): LeaseRecord | undefined {
  if (!lease) return undefined;
  // The chart creates the Lease with an empty spec: it exists, nobody holds it.
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    acquireTime: timeText(spec.acquireTime),
    renewTime: timeText(spec.renewTime),
    leaseTransitions: spec.leaseTransitions,
  };
}

function toSpec(record: LeaseRecord): V1Lease['spec'] {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime ? new V1MicroTime(record.acquireTime) : undefined,
    renewTime: record.renewTime ? new V1MicroTime(record.renewTime) : undefined,
    leaseTransitions: record.leaseTransitions,
  };
}

export class LeaderElector {
  private leading = false;
  private lastRenewedAtMs = 0;
  private stopped = false;
  /** Set while the Lease is missing and could not be created, so that is said once, not every retry. */
  private missingReported = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectorOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Stops campaigning; a leader steps down and releases the Lease so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.options.onStoppedLeading();
      await this.release();
    }
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    while (!this.stopped) {
      let holdsLease = false;
      try {
        holdsLease = await this.tryAcquireOrRenew();
      } catch (error) {
        logger.warn({ err: describe(error) }, 'leader election: lease request failed');
      }
      if (this.stopped) break;
      const nowMs = Date.now();
      if (holdsLease) {
        this.lastRenewedAtMs = nowMs;
        if (!this.leading) {
          this.leading = true;
          logger.info({ lease: `${this.options.namespace}/${this.options.name}` }, 'leader election: started leading');
          await this.options.onStartedLeading();
        }
      } else if (this.leading && nowMs - this.lastRenewedAtMs > this.options.renewDeadlineSeconds * 1000) {
        this.leading = false;
        logger.warn('leader election: lost the lease, stopping');
        await this.options.onStoppedLeading();
      }
      await this.sleep(this.options.retryPeriodSeconds * 1000);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { api, namespace, name, identity, leaseDurationSeconds } = this.options;
    let lease: V1Lease | undefined;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
      this.missingReported = false;
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 404)) throw error;
    }
    const decision = decideLease(toRecord(lease), identity, leaseDurationSeconds, Date.now());
    try {
      switch (decision.action) {
        case 'wait':
          return false;
        case 'create':
          // Only where the operator's credentials allow it: the chart creates the Lease and grants no create.
          try {
            await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: toSpec(decision.record) } });
          } catch (error) {
            if (!(error instanceof ApiException && error.code === 403)) throw error;
            this.reportMissingLease(error);
            return false;
          }
          return true;
        case 'renew':
        case 'takeover':
          // resourceVersion makes this a compare-and-swap: a concurrent writer gets 409.
          await api.replaceNamespacedLease({ name, namespace, body: { metadata: { ...lease?.metadata, name, namespace }, spec: toSpec(decision.record) } });
          return true;
      }
    } catch (error) {
      if (error instanceof ApiException && (error.code === 409 || error.code === 422)) return false;
      throw error;
    }
  }

  private reportMissingLease(error: unknown): void {
    const { namespace, name, logger } = this.options;
    const lease = `${namespace}/${name}`;
    if (this.missingReported) {
      logger.debug({ lease }, 'leader election: the lease is still missing');
      return;
    }
    this.missingReported = true;
    logger.error(
      { lease, err: describe(error) },
      `leader election: Lease ${lease} does not exist and this operator may not create it; it belongs to the Helm release, and \`helm upgrade\` of the release creates it again. No replica leads until it exists`,
    );
  }

  private async release(): Promise<void> {
    const { api, namespace, name, identity, logger } = this.options;
    try {
      const lease = await api.readNamespacedLease({ name, namespace });
      const record = toRecord(lease);
      if (!record || record.holderIdentity !== identity) return;
      await api.replaceNamespacedLease({ name, namespace, body: { metadata: lease.metadata, spec: toSpec(releasedRecord(record)) } });
      logger.info('leader election: released the lease');
    } catch (error) {
      // helm uninstall deletes the Lease while the pods are still stopping: nothing left to release.
      if (error instanceof ApiException && error.code === 404) {
        logger.info('leader election: the lease is gone, nothing to release');
        return;
      }
      logger.warn({ err: describe(error) }, 'leader election: could not release the lease');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
