// Erasing one event now (right to erasure): the event with its payload, its delivery rows (queued
// and settled) and their attempts. Refused while rows are still to be sent, unless forced, which
// cancels them by deleting them. Two round trips in series: the queue read, then the deletes side
// by side (each served by an `eventId` index; the event by `_id`).
//
// An attempt already on the wire finishes, and its outcome may be written after the erase (a
// settled row and an attempt, without payload): an erase that removes rows IN_FLIGHT leaves a note
// first, and the maintenance pass removes those late writes once no attempt can still be running
// (model/erasure-notes.ts). Until then a second erase removes them too: erasing answers 404 only
// when nothing of the event is left.
import type { CoreContext } from '../context.js';
import { noteErasureInFlight } from '../model/erasure-notes.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { Scope } from '../shared/scope.js';
import type { ErasedEvent } from './contract.js';

export async function eraseEvent(context: CoreContext, scope: Scope, eventId: string, options: { force?: boolean } = {}): Promise<ErasedEvent> {
  const { collections, compat } = context;
  const [event, queued] = await Promise.all([
    compat.retry(() => collections.events.findOne({ _id: eventId }, { projection: { orgId: 1 } })),
    compat.retry(() => collections.queue.find({ eventId }, { projection: { orgId: 1, status: 1 } }).toArray()),
  ]);
  // Another org's event is as missing as a nonexistent one.
  if (event && event.orgId !== scope.orgId) throw notFound(eventId);
  if (queued.some((row) => row.orgId !== scope.orgId)) throw notFound(eventId);
  if (queued.length > 0 && !options.force) {
    throw new ConflictError(`webhook event "${eventId}" has ${queued.length} deliveries pending; erase with force=true to cancel them`);
  }
  if (queued.some((row) => row.status === 'IN_FLIGHT')) await noteErasureInFlight(collections, compat, eventId, scope.orgId, context.now());
  const inOrg = { eventId, orgId: scope.orgId };
  const [cancelled, erased, deliveries, attempts] = await Promise.all([
    queued.length > 0 ? compat.write(() => collections.queue.deleteMany(inOrg)) : Promise.resolve({ deletedCount: 0 }),
    compat.write(() => collections.events.deleteOne({ _id: eventId, orgId: scope.orgId })),
    compat.write(() => collections.deliveries.deleteMany(inOrg)),
    compat.write(() => collections.attempts.deleteMany(inOrg)),
  ]);
  if (erased.deletedCount + cancelled.deletedCount + deliveries.deletedCount + attempts.deletedCount === 0) throw notFound(eventId);
  return { eventId, cancelledDeliveries: cancelled.deletedCount, deliveries: deliveries.deletedCount, attempts: attempts.deletedCount };
}

function notFound(eventId: string): NotFoundError {
  return new NotFoundError(`webhook event "${eventId}" not found`);
}
