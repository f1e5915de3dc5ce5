// One reconcile of one WebhookSubscriber (imperative shell around plan.ts / conditions.ts):
// finalizer, Secret, Herald create/update/delete, status, Events.
import type { V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { FINALIZER, type AutoDisabledStatus, type WebhookSubscriberResource, type WebhookSubscriberStatus } from '../crd/types.js';
import type { HeraldClient } from '../herald/client.js';
import { HeraldApiError, HeraldUnreachableError, isNotFound } from '../herald/errors.js';
import type { Subscriber } from '../herald/types.js';
import { describeKubeError, kubeStatusCode } from '../kube/errors.js';
import { withFinalizer, withoutFinalizer, type KubeGateway } from '../kube/gateway.js';
import type { Metrics } from '../metrics.js';
import { conditionsFor, findCondition, type SyncOutcome } from './conditions.js';
import { desiredSubscriber } from './desired.js';
import { planSync } from './plan.js';
import { resolveOAuth2Secret, resolveSecret, resolveTlsSecret } from './secret.js';

/** Annotation that lets the operator take over a subscriber another principal created. */
export const ADOPT_ANNOTATION = 'herald.dev/adopt';

/** Thrown after the failure is recorded in status, so the work queue retries with backoff. */
export class ReconcileFailure extends Error {
  override readonly name = 'ReconcileFailure';
}

export interface ReconcilerDeps {
  lookupResource(namespace: string, name: string): WebhookSubscriberResource | undefined;
  lookupSecret(namespace: string, name: string): V1Secret | undefined;
  herald: Pick<HeraldClient, 'getSubscriber' | 'createSubscriber' | 'updateSubscriber' | 'deleteSubscriber'>;
  operatorPrincipal: () => Promise<string>;
  kube: KubeGateway;
  metrics: Metrics;
  logger: Logger;
  now?: () => Date;
}

type Failure = Extract<SyncOutcome, { ok: false }>;

function classify(error: unknown): Failure | undefined {
  if (error instanceof HeraldUnreachableError) return { ok: false, reason: 'HostUnreachable', message: error.message };
  if (error instanceof HeraldApiError) {
    if (error.status === 409) return { ok: false, reason: 'Conflict', message: `Herald answered CONFLICT: ${error.message}` };
    if (error.status === 400) {
      const fields = error.fieldErrors.map((detail) => `${detail.field ?? '?'}: ${detail.message ?? ''}`).join('; ');
      return { ok: false, reason: 'Invalid', message: `Herald rejected the subscriber: ${error.message}${fields ? ` (${fields})` : ''}` };
    }
    if (error.status >= 500) return { ok: false, reason: 'HostUnreachable', message: `Herald answered HTTP ${error.status} ${error.code}` };
    return { ok: false, reason: 'Rejected', message: `Herald answered HTTP ${error.status} ${error.code}: ${error.message}` };
  }
  return undefined;
}

export class Reconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(namespace: string, name: string): Promise<void> {
    const resource = this.deps.lookupResource(namespace, name);
    if (!resource) return; // gone; the finalizer already cleaned Herald up
    if (resource.metadata?.deletionTimestamp) return this.finalize(resource);

    let current = resource;
    const finalizers = withFinalizer(current);
    if (finalizers) current = await this.deps.kube.setFinalizers(current, finalizers);

    const desired = desiredSubscriber(current);
    const secret = resolveSecret(current, current.spec.secretRef ? this.deps.lookupSecret(namespace, current.spec.secretRef.name) : undefined);
    if (secret.kind === 'missing') return this.fail(current, { ok: false, reason: 'SecretNotFound', message: secret.message }, desired.id);
    if (secret.kind === 'invalid') return this.fail(current, { ok: false, reason: 'Invalid', message: secret.message }, desired.id);
    const tls = resolveTlsSecret(current, current.spec.tlsSecretRef ? this.deps.lookupSecret(namespace, current.spec.tlsSecretRef.name) : undefined);
    if (tls.kind === 'missing') return this.fail(current, { ok: false, reason: 'SecretNotFound', message: tls.message }, desired.id);
    const oauth2Ref = current.spec.oauth2?.clientSecretRef;
    const oauth2 = resolveOAuth2Secret(current, oauth2Ref ? this.deps.lookupSecret(namespace, oauth2Ref.name) : undefined);
    if (oauth2.kind === 'missing') return this.fail(current, { ok: false, reason: 'SecretNotFound', message: oauth2.message }, desired.id);

    let result: Subscriber;
    let change: { kind: 'create' | 'update'; message: string } | undefined;
    try {
      // A CR never synced before most likely has no subscriber yet: try the create straight away
      // and read only if Herald answers CONFLICT (one request less per new CR).
      let actual = current.status?.handle ? await this.getOrUndefined(desired.id) : undefined;
      for (let attempt = 1; ; attempt += 1) {
        const plan = planSync({
          desired,
          secret,
          actual,
          operatorPrincipal: await this.deps.operatorPrincipal(),
          pushedSecretVersion: current.status?.secretVersion,
          tls,
          pushedTlsSecretVersion: current.status?.tlsSecretVersion,
          oauth2,
          pushedOAuth2SecretVersion: current.status?.oauth2SecretVersion,
          adoptForeign: current.metadata?.annotations?.[ADOPT_ANNOTATION] === 'true',
          generation: current.metadata?.generation ?? 0,
          autoDisabled: current.status?.autoDisabled,
        });
        if (plan.action === 'conflict') {
          return this.fail(current, {
            ok: false,
            reason: 'Conflict',
            message: `subscriber "${desired.id}" already exists in Herald and was created by "${plan.createdBy}", not by this operator; ` +
              `choose another spec.handle, or annotate ${ADOPT_ANNOTATION}="true" to take it over`,
          }, desired.id);
        }
        if (plan.action === 'create') {
          try {
            result = await this.deps.herald.createSubscriber(plan.request);
          } catch (error) {
            if (attempt === 1 && error instanceof HeraldApiError && error.status === 409) {
              actual = await this.getOrUndefined(desired.id);
              continue;
            }
            throw error;
          }
          change = { kind: 'create', message: `Created subscriber "${desired.id}" in Herald` };
        } else if (plan.action === 'update') {
          result = await this.deps.herald.updateSubscriber(desired.id, plan.patch);
          change = { kind: 'update', message: `Updated subscriber "${desired.id}" in Herald (${plan.changedFields.join(', ')})` };
        } else {
          result = actual as Subscriber; // 'none' is only planned for an existing subscriber
        }
        break;
      }
    } catch (error) {
      const failure = classify(error);
      if (!failure) throw error;
      return this.fail(current, failure, desired.id);
    }

    const autoDisabled = autoDisabledStatus(result, current);
    const outcome: SyncOutcome = { ok: true, message: change?.message ?? `Subscriber "${desired.id}" is in sync`, autoDisabled: autoDisabled?.message };
    const newlyAutoDisabled = autoDisabled !== undefined && current.status?.autoDisabled?.at !== autoDisabled.at;
    await this.writeStatus(current, outcome, {
      handle: desired.id,
      hasSecret: result.hasSecret,
      secretVersion: secret.kind === 'found' ? secret.version : undefined,
      autoDisabled,
      tlsSecretVersion: tls.kind === 'found' ? tls.version : undefined,
      oauth2SecretVersion: oauth2.kind === 'found' ? oauth2.version : undefined,
    }, change !== undefined || newlyAutoDisabled);
    if (newlyAutoDisabled) await this.event(current, 'Warning', 'AutoDisabled', `Herald auto-disabled subscriber "${desired.id}": ${autoDisabled.message}`);
    if (change) {
      this.deps.metrics.increment('herald_operator_herald_writes_total', 'Subscriber writes sent to Herald', { kind: change.kind });
      await this.event(current, 'Normal', 'Synced', change.message);
    }
  }

  private async getOrUndefined(id: string): Promise<Subscriber | undefined> {
    try {
      return await this.deps.herald.getSubscriber(id);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The CR is being deleted: delete our subscriber in Herald first, then let the CR go. */
  private async finalize(resource: WebhookSubscriberResource): Promise<void> {
    if (!resource.metadata?.finalizers?.includes(FINALIZER)) return;
    const id = desiredSubscriber(resource).id;
    try {
      const actual = await this.getOrUndefined(id);
      const owned = actual && (actual.createdBy === (await this.deps.operatorPrincipal()) || resource.metadata.annotations?.[ADOPT_ANNOTATION] === 'true');
      if (owned) {
        await this.deps.herald.deleteSubscriber(id).catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
        this.deps.metrics.increment('herald_operator_herald_writes_total', 'Subscriber writes sent to Herald', { kind: 'delete' });
      } else if (actual) {
        this.deps.logger.info({ handle: id }, 'not deleting a subscriber this operator did not create');
      }
    } catch (error) {
      const failure = classify(error);
      if (!failure) throw error;
      await this.event(resource, 'Warning', 'SyncFailed', `Cannot delete subscriber "${id}" in Herald yet: ${failure.message}`);
      throw new ReconcileFailure(failure.message);
    }
    const remaining = withoutFinalizer(resource);
    if (remaining) await this.deps.kube.setFinalizers(resource, remaining);
  }

  private async fail(resource: WebhookSubscriberResource, failure: Failure, handle: string): Promise<never> {
    const previous = findCondition(resource.status?.conditions, 'Synced');
    const isNews = !previous || previous.status !== 'False' || previous.reason !== failure.reason || previous.message !== failure.message;
    await this.writeStatus(resource, failure, { handle }, isNews);
    if (isNews) await this.event(resource, 'Warning', 'SyncFailed', failure.message);
    throw new ReconcileFailure(`${failure.reason}: ${failure.message}`);
  }

  private async writeStatus(
    resource: WebhookSubscriberResource,
    outcome: SyncOutcome,
    fields: Pick<WebhookSubscriberStatus, 'handle' | 'hasSecret' | 'secretVersion' | 'autoDisabled' | 'tlsSecretVersion' | 'oauth2SecretVersion'>,
    force: boolean,
  ): Promise<void> {
    const previous = resource.status ?? {};
    const generation = resource.metadata?.generation ?? 0;
    const now = (this.deps.now?.() ?? new Date()).toISOString();
    const conditions = conditionsFor(outcome, generation, now, previous.conditions);
    const status: WebhookSubscriberStatus = {
      observedGeneration: generation,
      handle: fields.handle,
      hasSecret: fields.hasSecret ?? previous.hasSecret,
      secretVersion: fields.secretVersion ?? (outcome.ok ? undefined : previous.secretVersion),
      tlsSecretVersion: fields.tlsSecretVersion ?? (outcome.ok ? undefined : previous.tlsSecretVersion),
      oauth2SecretVersion: fields.oauth2SecretVersion ?? (outcome.ok ? undefined : previous.oauth2SecretVersion),
      conditions,
      lastSyncedAt: outcome.ok ? now : previous.lastSyncedAt,
      // A failed sync learnt nothing new about Herald's side: keep what was reported.
      autoDisabled: outcome.ok ? fields.autoDisabled : previous.autoDisabled,
    };
    // Skip no-op writes: every status write is a watch event, and periodic resyncs would churn.
    if (!force && sameStatus(previous, status)) return;
    try {
      await this.deps.kube.patchStatus(resource, { ...status, secretVersion: status.secretVersion ?? null, autoDisabled: status.autoDisabled ?? null, tlsSecretVersion: status.tlsSecretVersion ?? null, oauth2SecretVersion: status.oauth2SecretVersion ?? null });
    } catch (error) {
      if (kubeStatusCode(error) === 404) return; // deleted meanwhile
      throw error;
    }
  }

  private async event(resource: WebhookSubscriberResource, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    this.deps.metrics.increment('herald_operator_events_total', 'Kubernetes Events recorded', { reason });
    try {
      await this.deps.kube.recordEvent(resource, type, reason, message);
    } catch (error) {
      // Events are best effort: never fail a reconcile because one could not be recorded.
      this.deps.logger.warn({ err: describeKubeError(error) }, 'could not record event');
    }
  }
}

/** What status reports of an auto-disabled subscriber; the generation it was first seen at is kept. */
function autoDisabledStatus(subscriber: Subscriber, resource: WebhookSubscriberResource): AutoDisabledStatus | undefined {
  if (subscriber.enabled || !subscriber.disabledReason) return undefined;
  const { at, message } = subscriber.disabledReason;
  const reported = resource.status?.autoDisabled;
  return { at, message, observedGeneration: reported?.at === at ? reported.observedGeneration : (resource.metadata?.generation ?? 0) };
}

function sameStatus(before: WebhookSubscriberStatus, after: WebhookSubscriberStatus): boolean {
  const conditionKey = (status: WebhookSubscriberStatus) =>
    JSON.stringify((status.conditions ?? []).map(({ type, status: value, reason, message, observedGeneration }) => [type, value, reason, message, observedGeneration]));
  return (
    before.observedGeneration === after.observedGeneration &&
    before.handle === after.handle &&
    before.hasSecret === after.hasSecret &&
    (before.secretVersion ?? null) === (after.secretVersion ?? null) &&
    JSON.stringify(before.autoDisabled ?? null) === JSON.stringify(after.autoDisabled ?? null) &&
    (before.tlsSecretVersion ?? null) === (after.tlsSecretVersion ?? null) &&
    (before.oauth2SecretVersion ?? null) === (after.oauth2SecretVersion ?? null) &&
    conditionKey(before) === conditionKey(after)
  );
}
