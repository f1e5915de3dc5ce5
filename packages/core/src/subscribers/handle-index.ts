// Handle → subscriber lookups through `_id`, the one query shape FerretDB v1 pushes down to storage
// (any other filter makes it decode every subscriber: measured 21 gets/s at 300 subscribers).
//
// The `handles` collection is only an accelerator, never the source of truth: uniqueness is the
// unique index `{orgId, handle}` on subscribers, and every hit is verified against the subscriber
// document, so a stale or missing entry (a crash between two writes, rows inserted behind Herald's
// back) costs one slow query that also repairs the entry.
import { upsertWithRetry, type Collections } from '../storage/collections.js';
import type { SubscriberDocument } from '../storage/documents.js';

export function handleKey(orgId: string, handle: string): string {
  return `${encodeURIComponent(orgId)}|${handle}`;
}

export async function rememberHandle(collections: Collections, document: Pick<SubscriberDocument, '_id' | 'orgId' | 'handle'>): Promise<void> {
  await upsertWithRetry(() =>
    collections.handles.updateOne(
      { _id: handleKey(document.orgId, document.handle) },
      { $set: { orgId: document.orgId, handle: document.handle, subscriberId: document._id } },
      { upsert: true },
    ),
  );
}

export async function forgetHandle(collections: Collections, orgId: string, handle: string, subscriberId: string): Promise<void> {
  // Conditional: a newer subscriber may already own the handle.
  await collections.handles.deleteOne({ _id: handleKey(orgId, handle), subscriberId });
}

export async function findByHandle(collections: Collections, orgId: string, handle: string): Promise<SubscriberDocument | null> {
  const entry = await collections.handles.findOne({ _id: handleKey(orgId, handle) });
  if (entry) {
    const document = await collections.subscribers.findOne({ _id: entry.subscriberId });
    if (document && document.orgId === orgId && document.handle === handle) return document;
  }
  const document = await collections.subscribers.findOne({ orgId, handle });
  if (document) await rememberHandle(collections, document);
  else if (entry) await forgetHandle(collections, orgId, handle, entry.subscriberId);
  return document;
}
