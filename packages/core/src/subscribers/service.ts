// herald.subscribers: CRUD over the subscribers collection, the handle accelerator and the org's revision token.
import { releaseHeldRows } from '../ordering/sequences.js';
import type { CoreContext } from '../context.js';
import { SUMMARY_PROJECTION, toDeliverySummary, type DeliveryRowSummary } from '../model/delivery-views.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { CANCELLED_DELETED, CANCELLED_DISABLED } from '../model/cancellation-reasons.js';
import { cancelInBackground } from './cancellation.js';
import { handleTaken, replaceByRevision, subscriberNotFound } from './revision-write.js';
import { SUBSCRIBER_DELIVERIES_MAX } from '../schemas/index.js';
import { isDuplicateKeyError } from '../storage/collections.js';
import type { SubscriberDocument } from '../storage/documents.js';
import type { Scope } from '../shared/scope.js';
import type { SubscriberDeliveryPage, SubscriberService } from './contract.js';
import { validatePageQuery } from '../validation/page.js';
import { newSubscriberDocument, patchedSubscriberDocument, type ChangeContext } from './changes.js';
import { principalsOf, SYSTEM_ACTOR, toListItem, toResponse } from './mapping.js';
import { findByHandle, forgetHandle, rememberHandle } from './handle-index.js';
import { previewFilter } from './filter-preview.js';
import { readSubscriberDeliveriesCursor, subscriberDeliveriesCursor, subscriberDeliveriesQueries } from './deliveries-query.js';
import { bumpSubscribersRevision } from '../model/subscriber-directory.js';
import { checkEgressProxyConfigured, isPossibleHandle, validateSubscriberCreate, validateSubscriberUpdate } from './validation.js';

/** lastAttemptAt descending with never-attempted rows last, then createdAt descending, then id. */
function newestAttemptFirst(a: DeliveryRowSummary, b: DeliveryRowSummary): number {
  const attempted = (a.lastAttemptAt?.getTime() ?? -Infinity) - (b.lastAttemptAt?.getTime() ?? -Infinity);
  if (attempted !== 0 && Number.isFinite(attempted)) return -attempted;
  if (a.lastAttemptAt && !b.lastAttemptAt) return -1;
  if (!a.lastAttemptAt && b.lastAttemptAt) return 1;
  return b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

export function createSubscriberService(context: CoreContext): SubscriberService {
  const { collections } = context;

  /**
   * One page of a subscriber's rows from both collections (a row moving between them at that moment
   * is taken from the queue, the live copy): each read asks one row more than the page, so whether
   * another page follows is known without counting.
   */
  async function deliveriesPage(scope: Scope, handle: string, query: { cursor?: unknown } = {}): Promise<SubscriberDeliveryPage> {
    const subscriber = await load(scope, handle);
    const position = query.cursor === undefined ? undefined : readSubscriberDeliveriesCursor(scope.orgId, subscriber._id, query.cursor);
    const wanted = SUBSCRIBER_DELIVERIES_MAX + 1;
    const merged: DeliveryRowSummary[] = [];
    const seen = new Set<string>();
    for (const { filter, sort } of subscriberDeliveriesQueries(subscriber._id, position?.after)) {
      const newest = (rows: typeof collections.deliveries) =>
        rows.find(filter).sort(sort).limit(wanted - merged.length).project<DeliveryRowSummary>(SUMMARY_PROJECTION).toArray();
      const [active, finished] = await Promise.all([newest(collections.queue), newest(collections.deliveries)]);
      // The queue's copy first: it is the live one.
      const stretch = [...active, ...finished].filter((row) => !seen.has(row._id) && seen.add(row._id));
      merged.push(...stretch.sort(newestAttemptFirst));
      if (merged.length >= wanted) break;
    }
    const rows = merged.slice(0, SUBSCRIBER_DELIVERIES_MAX);
    const last = rows.at(-1);
    const offset = (position?.offset ?? 0) + rows.length;
    const nextCursor = merged.length > SUBSCRIBER_DELIVERIES_MAX && last ? subscriberDeliveriesCursor(scope.orgId, subscriber._id, last, offset) : undefined;
    return { list: rows.map(toDeliverySummary), ...(nextCursor ? { nextCursor } : {}) };
  }

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
    if (!document) throw subscriberNotFound(handle);
    return document;
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
      const written = await replaceByRevision(context, found._id, handle, (current) => patchedSubscriberDocument(current, valid, changeContext(scope)));
      if (!written) throw new ConflictError(`webhook subscriber "${handle}" was modified concurrently; retry the update`);
      const { current, next } = written;
      if (next.handle !== current.handle) {
        await rememberHandle(collections, next);
        await forgetHandle(collections, scope.orgId, current.handle, current._id);
      }
      await bumpSubscribersRevision(collections, scope.orgId);
      if (current.enabled && !next.enabled) cancelInBackground(context, current._id, CANCELLED_DISABLED, next.updatedAt);
      else if (current.ordering === 'aggregate' && next.ordering !== 'aggregate') releaseInBackground(current._id, next.updatedAt);
      return respond(next);
    },

    async delete(scope, handle) {
      const current = await load(scope, handle);
      // By id and handle: a concurrent rename makes this a 404 rather than deleting the renamed one.
      const result = await collections.subscribers.deleteOne({ _id: current._id, handle });
      if (result.deletedCount === 0) throw subscriberNotFound(handle);
      await forgetHandle(collections, scope.orgId, current.handle, current._id);
      await bumpSubscribersRevision(collections, scope.orgId);
      cancelInBackground(context, current._id, CANCELLED_DELETED, context.now());
    },

    async renewListener(scope, handle, expiresAt) {
      const found = isPossibleHandle(handle) ? await findByHandle(collections, scope.orgId, handle) : null;
      if (!found?.listener) return false;
      // A new revision like any change, so an update that read the listener before cannot write the
      // old expiry back. What it matches does not change: the org's revision stays.
      const written = await replaceByRevision(context, found._id, handle, (current) => {
        if (!current.listener) throw subscriberNotFound(handle);
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
      return (await deliveriesPage(scope, handle)).list;
    },

    deliveriesPage,
  };
}
