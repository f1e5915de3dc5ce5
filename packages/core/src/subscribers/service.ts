// herald.subscribers: CRUD over the subscribers collection, the handle accelerator and the org's revision token.
import { releaseHeldRows } from '../ordering/sequences.js';
import type { CoreContext } from '../context.js';
import { cancelPendingDeliveries } from '../model/event-status.js';
import { SUMMARY_PROJECTION, toDeliverySummary, type DeliveryRowSummary } from '../model/delivery-views.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { SUBSCRIBER_DELIVERIES_MAX } from '../schemas/index.js';
import { isDuplicateKeyError } from '../storage/collections.js';
import { releaseWriteTurn, takeWriteTurn } from '../storage/write-turns.js';
import type { SubscriberDocument } from '../storage/documents.js';
import type { Scope } from '../shared/scope.js';
import type { SubscriberService } from './contract.js';
import { validatePageQuery } from '../validation/page.js';
import { newSubscriberDocument, patchedSubscriberDocument, type ChangeContext } from './changes.js';
import { principalsOf, SYSTEM_ACTOR, toListItem, toResponse } from './mapping.js';
import { findByHandle, forgetHandle, rememberHandle } from './handle-index.js';
import { previewFilter } from './filter-preview.js';
import { bumpSubscribersRevision } from '../model/subscriber-directory.js';
import { checkEgressProxyConfigured, isPossibleHandle, validateSubscriberCreate, validateSubscriberUpdate } from './validation.js';

const CANCELLED_DISABLED = 'Cancelled: the subscriber was disabled before this delivery was attempted';
const CANCELLED_DELETED = 'Cancelled: the subscriber was deleted before this delivery was attempted';
/** Optimistic-concurrency retries of an update that raced another writer, with jittered backoff from the first delay. */
const UPDATE_ROUNDS = 8;
const UPDATE_RETRY_DELAY_MS = 10;

function notFound(handle: string): NotFoundError {
  return new NotFoundError(`webhook subscriber "${handle}" not found`);
}

function handleTaken(handle: string): ConflictError {
  return new ConflictError(`a webhook subscriber with id "${handle}" already exists`);
}

/** lastAttemptAt descending with never-attempted rows last, then createdAt descending, then id. */
function newestAttemptFirst(a: DeliveryRowSummary, b: DeliveryRowSummary): number {
  const attempted = (a.lastAttemptAt?.getTime() ?? -Infinity) - (b.lastAttemptAt?.getTime() ?? -Infinity);
  if (attempted !== 0 && Number.isFinite(attempted)) return -attempted;
  if (a.lastAttemptAt && !b.lastAttemptAt) return -1;
  if (!a.lastAttemptAt && b.lastAttemptAt) return 1;
  return b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

function pause(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, UPDATE_RETRY_DELAY_MS * 2 ** round * (0.5 + Math.random())));
}

export function createSubscriberService(context: CoreContext): SubscriberService {
  const { collections } = context;

  function changeContext(scope: Scope): ChangeContext {
    return {
      orgId: scope.orgId,
      actor: scope.actor ?? SYSTEM_ACTOR,
      now: context.now(),
      seal: (plaintext) => context.secretBox.seal(plaintext),
      holds: (sealed, plaintext) => {
        try {
          return context.secretBox.open(sealed) === plaintext;
        } catch {
          return false; // Unreadable (e.g. retired master key): treat as different and re-seal.
        }
      },
      secretRotationOverlapMs: context.secretRotationOverlapMs,
    };
  }

  /** Every data field some catalog type declares sensitive: a filter may name none of them. */
  function sensitiveFields(): Set<string> {
    return new Set(context.catalog.list().flatMap((definition) => definition.sensitive ?? []));
  }

  async function existingPrincipals(ids: string[]): Promise<Set<string> | undefined> {
    if (!context.principals) return undefined;
    if (ids.length === 0) return new Set();
    return context.principals.existing(ids);
  }

  /**
   * Cancelling a large backlog takes longer than an API call should (seconds for thousands of rows
   * on a slow store), so it runs after the answer. Nothing depends on its timing: the subscriber is
   * already disabled or gone, publishers stop matching it, and the engine cancels any row of it
   * that it claims before this reaches it (also after a crash here).
   */
  function cancelInBackground(subscriberId: string, reason: string, now: Date): void {
    const cancelling = cancelPendingDeliveries(collections, context.compat, subscriberId, reason, now)
      .then(() => undefined)
      .catch((error: unknown) => {
        context.logger.error({ subscriberId, err: error instanceof Error ? error.message : String(error) }, 'cancelling a subscriber\'s pending deliveries failed; the engine cancels them when it claims them');
      })
      .finally(() => context.background.delete(cancelling));
    context.background.add(cancelling);
  }

  /** Ordering turned off: the rows held for their key's turn become due (ordering/keys.ts). */
  function releaseInBackground(subscriberId: string, now: Date): void {
    void releaseHeldRows(context, subscriberId, now).then(
      () => context.engine.notify(),
      (error: unknown) => {
        context.logger.error({ subscriberId, err: error instanceof Error ? error.message : String(error) }, 'releasing the held deliveries of a subscriber whose ordering was turned off failed; the sweep releases them one per key at a time');
      },
    );
  }

  async function respond(document: SubscriberDocument) {
    const [existing, health] = await Promise.all([existingPrincipals(principalsOf([document], true)), collections.health.findOne({ _id: document._id })]);
    return toResponse(document, existing, health);
  }

  async function load(scope: Scope, handle: string): Promise<SubscriberDocument> {
    const document = isPossibleHandle(handle) ? await findByHandle(collections, scope.orgId, handle) : null;
    if (!document) throw notFound(handle);
    return document;
  }

  /**
   * Writes `change(current)` over the stored document, conditional on the revision it was made
   * from, re-reading and re-applying it when another writer got there first; undefined when it kept
   * losing. `change` returns the next document with the revision after the current one.
   */
  async function replaceByRevision(
    id: string,
    handle: string,
    change: (current: SubscriberDocument) => SubscriberDocument,
  ): Promise<{ current: SubscriberDocument; next: SubscriberDocument } | undefined> {
    for (let round = 0; round < UPDATE_ROUNDS; round++) {
      if (round > 0) await pause(round - 1);
      const current = await collections.subscribers.findOne({ _id: id });
      if (!current || current.handle !== handle) throw notFound(handle);
      const next = change(current);
      if (!(await takeWriteTurn(collections, context.compat, 'subscriber', current._id, next.revision, next.updatedAt))) continue;
      let matched = 0;
      try {
        // `null` also matches documents written without a revision.
        matched = (await collections.subscribers.replaceOne({ _id: current._id, revision: current.revision ?? null }, next)).matchedCount;
      } catch (error) {
        await releaseWriteTurn(collections, context.compat, 'subscriber', current._id, next.revision);
        if (isDuplicateKeyError(error)) throw handleTaken(next.handle);
        throw error;
      }
      if (matched === 1) return { current, next };
      await releaseWriteTurn(collections, context.compat, 'subscriber', current._id, next.revision);
    }
    return undefined;
  }

  return {
    async create(scope, input, options = {}) {
      const valid = validateSubscriberCreate(input, sensitiveFields(), context.now());
      checkEgressProxyConfigured(valid.egressProxy, context.egressProxyNames);
      const document = newSubscriberDocument(valid, changeContext(scope));
      if (options.listener) document.listener = { expiresAt: options.listener.expiresAt };
      try {
        await collections.subscribers.insertOne(document);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw handleTaken(document.handle);
        throw error;
      }
      await rememberHandle(collections, document);
      await bumpSubscribersRevision(collections, scope.orgId);
      return respond(document);
    },

    async get(scope, handle) {
      return respond(await load(scope, handle));
    },

    async list(scope, query = {}) {
      const { limit, offset } = validatePageQuery(query);
      const filter = query.listeners === true ? { orgId: scope.orgId } : { orgId: scope.orgId, listener: { $exists: false } };
      const [documents, total] = await Promise.all([
        collections.subscribers.find(filter).sort({ createdAt: 1, handle: 1 }).skip(offset).limit(limit).toArray(),
        collections.subscribers.countDocuments(filter),
      ]);
      const [existing, health] = await Promise.all([
        existingPrincipals(principalsOf(documents, false)),
        documents.length > 0 ? collections.health.find({ _id: { $in: documents.map((document) => document._id) } }).toArray() : [],
      ]);
      const healthOf = new Map(health.map((document) => [document._id, document]));
      const list = documents.map((document) => toListItem(document, existing, healthOf.get(document._id)));
      return { list, count: list.length, pagination: { total, limit, offset } };
    },

    async update(scope, handle, patch) {
      const valid = validateSubscriberUpdate(patch, sensitiveFields(), context.now());
      checkEgressProxyConfigured(valid.egressProxy, context.egressProxyNames);
      const found = await load(scope, handle);
      const written = await replaceByRevision(found._id, handle, (current) => patchedSubscriberDocument(current, valid, changeContext(scope)));
      if (!written) throw new ConflictError(`webhook subscriber "${handle}" was modified concurrently; retry the update`);
      const { current, next } = written;
      if (next.handle !== current.handle) {
        await rememberHandle(collections, next);
        await forgetHandle(collections, scope.orgId, current.handle, current._id);
      }
      await bumpSubscribersRevision(collections, scope.orgId);
      if (current.enabled && !next.enabled) cancelInBackground(current._id, CANCELLED_DISABLED, next.updatedAt);
      else if (current.ordering === 'aggregate' && next.ordering !== 'aggregate') releaseInBackground(current._id, next.updatedAt);
      return respond(next);
    },

    async delete(scope, handle) {
      const current = await load(scope, handle);
      // By id and handle: a concurrent rename makes this a 404 rather than deleting the renamed one.
      const result = await collections.subscribers.deleteOne({ _id: current._id, handle });
      if (result.deletedCount === 0) throw notFound(handle);
      await forgetHandle(collections, scope.orgId, current.handle, current._id);
      await bumpSubscribersRevision(collections, scope.orgId);
      cancelInBackground(current._id, CANCELLED_DELETED, context.now());
    },

    async renewListener(scope, handle, expiresAt) {
      const found = isPossibleHandle(handle) ? await findByHandle(collections, scope.orgId, handle) : null;
      if (!found?.listener) return false;
      // A new revision like any change, so an update that read the listener before cannot write the
      // old expiry back. What it matches does not change: the org's revision stays.
      const written = await replaceByRevision(found._id, handle, (current) => {
        if (!current.listener) throw notFound(handle);
        return { ...current, listener: { expiresAt }, revision: (current.revision ?? 0) + 1 };
      }).catch((error: unknown) => {
        if (error instanceof NotFoundError) return 'gone' as const;
        throw error;
      });
      // Kept losing to other writers: the listener is there, and its stream renews it again shortly.
      return written !== 'gone';
    },

    async expiredListeners(scope, now) {
      const expired = await collections.subscribers
        .find({ orgId: scope.orgId, 'listener.expiresAt': { $lt: now } })
        .project<{ handle: string }>({ handle: 1 })
        .limit(100)
        .toArray();
      return expired.map((document) => document.handle);
    },

    previewFilter(scope, input) {
      return previewFilter(context, scope.orgId, input, sensitiveFields());
    },

    async deliveries(scope, handle) {
      const subscriber = await load(scope, handle);
      // Rows never attempted have lastAttemptAt null, which sorts last in descending order; among
      // them the newest created comes first.
      const newest = (rows: typeof collections.deliveries) =>
        rows
          .find({ subscriberId: subscriber._id })
          .sort({ lastAttemptAt: -1, createdAt: -1, _id: -1 })
          .limit(SUBSCRIBER_DELIVERIES_MAX)
          .project<DeliveryRowSummary>(SUMMARY_PROJECTION)
          .toArray();
      const [active, finished] = await Promise.all([newest(collections.queue), newest(collections.deliveries)]);
      const seen = new Set(active.map((row) => row._id));
      return [...active, ...finished.filter((row) => !seen.has(row._id))]
        .sort(newestAttemptFirst)
        .slice(0, SUBSCRIBER_DELIVERIES_MAX)
        .map(toDeliverySummary);
    },
  };
}
