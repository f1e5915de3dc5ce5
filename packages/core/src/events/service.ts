// herald.events: publish and the event reads.
import type { CoreContext } from '../context.js';
import { SUMMARY_PROJECTION, type DeliveryRowSummary } from '../model/delivery-views.js';
import type { AttemptDocument } from '../storage/documents.js';
import { requeueRows } from '../deliveries/requeue.js';
import { findRows } from '../model/delivery-rows.js';
import { ConflictError, HeraldError, isHeraldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { isStoreUnavailable, StoreUnavailableError } from '../storage/availability.js';
import { isDuplicateKeyError } from '../storage/collections.js';
import type { EventDocument } from '../storage/documents.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { PublishEventInput } from '../schemas/index.js';
import { traceparentOf, tracer } from '../shared/tracing.js';
import type { Scope } from '../shared/scope.js';
import type { EventService, PublishManyResult, PublishResult } from './contract.js';
import { validateCursorPageQuery, validateEventStatus } from '../validation/page.js';
import { eventListCursor, eventListQuery, readEventListCursor } from './list-query.js';
import { newEventDocument } from './event-document.js';
import { completeFanOut, eventPayload, sealSensitive } from './fan-out.js';
import { eraseEvent } from './erase.js';
import { createPublishBatcher } from './publish-batch.js';
import { idempotentEventId, newEventId, publishFingerprint, type IdempotencyNamespace } from './ids.js';
import { toWebhookEvent, toWebhookEventDetail } from './mapping.js';
import { splitSensitive } from '../model/payload.js';
import { idempotencyKeyProblem, validatePublishInput, validatePublishItem } from './publish-validation.js';

export interface InternalEventService extends EventService {
  publishOperational(orgId: string, eventType: string, aggregateId: string, data: Record<string, unknown>, idempotencyKey?: string): Promise<PublishResult>;
}

/** An item's failure as a typed error: the store's unavailability keeps its meaning, anything else is internal. */
function failed(error: unknown): PublishManyResult {
  if (isHeraldError(error)) return { ok: false, error };
  if (isStoreUnavailable(error)) return { ok: false, error: new StoreUnavailableError(undefined, { cause: error }) };
  return { ok: false, error: new HeraldError('INTERNAL_SERVER_ERROR', 'The event could not be published because of an unexpected error', { cause: error }) };
}

export function createEventService(context: CoreContext): InternalEventService {
  const { collections } = context;
  const batcher = createPublishBatcher(context);

  async function summaries(events: readonly EventDocument[]) {
    // Events recorded with no rows (nobody matched) need no delivery query.
    const withRows = events.filter((event) => event.deliveryCount > 0);
    if (withRows.length === 0) return events.map((event) => toWebhookEvent(event, []));
    // FerretDB v1 matches a `$in` in Go after decoding every row of both collections, all orgs'
    // (storage/compat.ts pointReads); an equality per event is handed to PostgreSQL instead.
    const rows = context.compat.pointReads
      ? (await Promise.all(withRows.map((event) => findRows<DeliveryRowSummary>(collections, { eventId: event._id }, SUMMARY_PROJECTION, event.deliveryCount)))).flat()
      : await findRows<DeliveryRowSummary>(
          collections,
          { eventId: { $in: withRows.map((event) => event._id) } },
          SUMMARY_PROJECTION,
          withRows.reduce((sum, event) => sum + event.deliveryCount, 0),
        );
    return events.map((event) => toWebhookEvent(event, rows.filter((row) => row.eventId === event._id)));
  }

  async function loadEvent(scope: Scope, eventId: string): Promise<EventDocument> {
    const event = await collections.events.findOne({ _id: eventId });
    // Another org's event is as missing as a nonexistent one.
    if (!event || event.orgId !== scope.orgId) throw new NotFoundError(`webhook event "${eventId}" not found`);
    return event;
  }

  async function detail(scope: Scope, eventId: string) {
    const event = await loadEvent(scope, eventId);
    const [rows, attempts] = await Promise.all([
      findRows(collections, { eventId }, undefined, event.deliveryCount),
      collections.attempts.find({ eventId }).sort({ startedAt: 1 }).toArray() as Promise<AttemptDocument[]>,
    ]);
    return toWebhookEventDetail(event, rows, attempts);
  }

  /** The detail of an event whose organization was checked already: its reads side by side. */
  async function detailOfChecked(scope: Scope, eventId: string) {
    const [event, rows, attempts] = await Promise.all([
      collections.events.findOne({ _id: eventId }),
      findRows(collections, { eventId }),
      collections.attempts.find({ eventId }).sort({ startedAt: 1 }).toArray() as Promise<AttemptDocument[]>,
    ]);
    if (!event) return detail(scope, eventId); // erased meanwhile: answered as any missing event
    const planned = rows.length < event.deliveryCount ? await findRows(collections, { eventId }, undefined, event.deliveryCount) : rows;
    return toWebhookEventDetail(event, planned, attempts);
  }

  /** A publish is a span; the event carries its traceparent so attempts join the trace. */
  function record(scope: Scope, input: PublishEventInput, sensitiveNames: readonly string[], key: string | undefined, namespace: IdempotencyNamespace = 'client'): Promise<PublishResult> {
    return tracer().startActiveSpan('herald.publish', { kind: SpanKind.PRODUCER, attributes: { 'herald.org': scope.orgId, 'herald.event_type': input.eventType } }, async (span) => {
      try {
        const result = await recordTraced(scope, input, sensitiveNames, key, namespace, traceparentOf(span));
        span.setAttributes({ 'herald.event_id': result.event.eventId, 'herald.deliveries': result.event.deliveries.length, 'herald.created': result.created });
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  async function recordTraced(scope: Scope, input: PublishEventInput, sensitiveNames: readonly string[], key: string | undefined, namespace: IdempotencyNamespace, traceparent: string | undefined): Promise<PublishResult> {
    const split = splitSensitive(input.data, sensitiveNames);
    const order = Object.keys(input.data);
    const hasSensitive = Object.keys(split.sensitiveValues).length > 0;
    const draft = newEventDocument({
      eventId: key === undefined ? newEventId() : idempotentEventId(scope.orgId, key, namespace),
      orgId: scope.orgId,
      input,
      split,
      now: context.now(),
      idempotencyKey: key,
      // Without a master key no subscriber can hold a secret, so nobody could receive the
      // sensitive values: they are dropped rather than stored for attempts that could not use them.
      sealedSensitive: hasSensitive && context.secretBox.canSeal ? sealSensitive(context, { order, values: split.sensitiveValues }) : undefined,
    });

    const fingerprint =
      key === undefined
        ? undefined
        : publishFingerprint({ ...input, publicData: split.publicData, sensitiveNames: Object.keys(split.sensitiveValues) });
    if (fingerprint !== undefined) draft.requestFingerprint = fingerprint;
    if (traceparent !== undefined) draft.traceparent = traceparent;
    try {
      const result = await batcher.publish(draft, eventPayload(draft, split, order));
      return { event: toWebhookEvent(result.event, result.rows), created: true };
    } catch (error) {
      if (key === undefined || !isDuplicateKeyError(error)) throw error;
      // Same idempotency key: the stored event answers — if the request is the same; finish its
      // fan-out if a crash interrupted it.
      const stored = await loadEvent(scope, draft._id);
      if (stored.requestFingerprint !== undefined && stored.requestFingerprint !== fingerprint) {
        throw new ConflictError(`Idempotency-Key "${key}" was already used for a different event; use a new key for a new event`);
      }
      await completeFanOut(context, stored);
      return { event: (await summaries([stored]))[0]!, created: false };
    }
  }

  return {
    async publish(scope, rawInput, options = {}) {
      const { input, sensitiveNames } = validatePublishInput(rawInput, context.catalog);
      const key = options.idempotencyKey;
      const keyProblem = key === undefined ? undefined : idempotencyKeyProblem(key);
      if (keyProblem !== undefined) throw ValidationError.single('Idempotency-Key', keyProblem);
      return record(scope, input, sensitiveNames, key);
    },

    publishMany(scope, items) {
      // Every valid item is handed to the publish batcher in this turn of the event loop, so they
      // share its group commits. An item whose key an earlier item of the call holds waits for that
      // one's answer, then goes as a repeated publish would: it finds the event stored (or, if the
      // earlier one failed, is published itself), never racing the earlier one's fan-out.
      const lastWithKey = new Map<string, Promise<PublishManyResult>>();
      return Promise.all(
        items.map((item): Promise<PublishManyResult> => {
          let valid: ReturnType<typeof validatePublishItem>;
          try {
            valid = validatePublishItem(item, context.catalog);
          } catch (error) {
            return Promise.resolve(failed(error));
          }
          const key = valid.idempotencyKey;
          const run = (): Promise<PublishManyResult> =>
            record(scope, valid.input, valid.sensitiveNames, key).then((result) => ({ ok: true, ...result }), failed);
          if (key === undefined) return run();
          const earlier = lastWithKey.get(key);
          const result = earlier === undefined ? run() : earlier.then(run);
          lastWithKey.set(key, result);
          return result;
        }),
      );
    },

    /** Herald's own events (model/operational.ts): the reserved family, data built by Herald. */
    publishOperational(orgId: string, eventType: string, aggregateId: string, data: Record<string, unknown>, idempotencyKey?: string) {
      return record({ orgId, actor: 'herald' }, { eventType, aggregateId, data }, [], idempotencyKey, 'herald');
    },

    async list(scope, query = {}) {
      const { limit, offset: requestedOffset, cursor } = validateCursorPageQuery(query);
      const status = validateEventStatus(query.status);
      const position = cursor === undefined ? undefined : readEventListCursor(scope.orgId, status, cursor);
      const offset = position?.offset ?? requestedOffset;
      const page = eventListQuery(scope.orgId, status, position?.after);
      const total = status === undefined ? { orgId: scope.orgId } : { orgId: scope.orgId, status };
      // One more than the page, to know whether a next page exists without counting.
      const [found, count] = await Promise.all([
        collections.events
          .find(page.filter, { projection: { data: 0, sealedSensitive: 0, subscriberIds: 0, requestFingerprint: 0 } })
          .sort(page.sort)
          .skip(position ? 0 : offset)
          .limit(limit + 1)
          .toArray(),
        collections.events.countDocuments(total),
      ]);
      const events = found.slice(0, limit);
      const list = await summaries(events);
      const last = events.at(-1);
      const nextCursor = found.length > limit && last ? eventListCursor(scope.orgId, status, last, offset + events.length) : undefined;
      return { list, count: list.length, pagination: { total: count, limit, offset }, ...(nextCursor ? { nextCursor } : {}) };
    },

    get: detail,

    async redeliver(scope, eventId) {
      const event = await loadEvent(scope, eventId);
      await completeFanOut(context, event);
      await requeueRows(context, { eventId });
      return detailOfChecked(scope, eventId);
    },

    erase(scope, eventId, options) {
      return eraseEvent(context, scope, eventId, options);
    },
  };
}
