// For the retention scenario: settled history written straight to the store (an event, its one
// delivery row and one attempt, as the engine leaves them), and the store's size of Herald's
// delivery collections as the store reports it (`collStats.size`).
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';

const COLLECTIONS = ['herald_events', 'herald_deliveries', 'herald_delivery_attempts', 'herald_delivery_queue'];
const BATCH = 1_000;

/** Bytes the store reports for Herald's event and delivery collections; NaN where it reports none. */
export async function storedBytes(db: Db): Promise<number> {
  let total = 0;
  for (const name of COLLECTIONS) {
    const stats = await db.command({ collStats: name }).catch(() => ({ size: Number.NaN }));
    total += Number(stats.size ?? Number.NaN);
  }
  return total;
}

/** `count` settled events of `orgId` accepted `ageMs` ago, each with one delivered row and one attempt. */
export async function seedSettledHistory(db: Db, orgId: string, count: number, ageMs: number): Promise<void> {
  const at = new Date(Date.now() - ageMs);
  const data = JSON.stringify({ orderId: 'o-1', total: 4200, currency: 'EUR', lines: [{ sku: 'sku-1', quantity: 2 }] });
  for (let start = 0; start < count; start += BATCH) {
    const size = Math.min(BATCH, count - start);
    const events = [];
    const rows = [];
    const attempts = [];
    for (let i = 0; i < size; i++) {
      const eventId = randomUUID();
      const deliveryId = randomUUID();
      events.push({
        _id: eventId, orgId, eventType: 'order.created', aggregateType: 'order', aggregateId: `order-${start + i}`, status: 'ALL_DELIVERED',
        occurredAt: at, createdAt: at, updatedAt: at, data, sensitiveFields: [], deliveryCount: 1, openDeliveries: 0, failedDeliveries: 0,
      });
      rows.push({
        _id: deliveryId, orgId, eventId, subscriberId: 'seeded', subscriberHandle: 'seeded', targetUrl: 'http://127.0.0.1:9/seeded', eventType: 'order.created',
        occurredAt: at, status: 'DELIVERED', attempts: 1, nextAttemptAt: null, leaseOwner: null, leaseUntil: null, lastHttpStatus: 200, lastError: null,
        lastAttemptAt: at, deliveredAt: at, encryptedFields: [], createdAt: at, updatedAt: at,
      });
      attempts.push({
        _id: `${deliveryId}:1`, deliveryId, eventId, subscriberId: 'seeded', orgId, attempt: 1, startedAt: at, durationMs: 3, httpStatus: 200,
        errorClass: null, errorMessage: null, responseBodySnippet: null,
      });
    }
    await Promise.all([
      db.collection<{ _id: string }>('herald_events').insertMany(events, { ordered: false }),
      db.collection<{ _id: string }>('herald_deliveries').insertMany(rows, { ordered: false }),
      db.collection<{ _id: string }>('herald_delivery_attempts').insertMany(attempts, { ordered: false }),
    ]);
  }
}
