// A subscriber's TLS material ready for a connection: the sealed client key opened once and kept
// with an id that names this exact material, so the sender gives each version its own pool.
//
// Cached by the sealed key: every change of a subscriber's `tls` seals the key anew (a fresh IV), so
// a rotation is a new entry and the old one ages out; nothing needs invalidating (a CA bundle alone
// is named by its hash). Bounded.
import { createHash } from 'node:crypto';
import type { SealedSecret, SubscriberTlsDocument } from '../storage/documents.js';
import type { ClientTlsMaterial } from './http/sender.js';

export interface ClientTlsCache {
  materialOf(tls: SubscriberTlsDocument): ClientTlsMaterial;
}

const DEFAULT_CAPACITY = 1_000;

export function createClientTlsCache(open: (sealed: SealedSecret) => string, capacity = DEFAULT_CAPACITY): ClientTlsCache {
  const entries = new Map<string, ClientTlsMaterial>();
  return {
    materialOf(tls) {
      // Without a key (a CA bundle alone) the public parts name the material.
      const sealedId = tls.key ? `${tls.key.keyId}:${tls.key.iv}:${tls.key.ciphertext}` : `ca:${createHash('sha256').update(tls.caBundle ?? '').digest('base64url')}`;
      const cached = entries.get(sealedId);
      if (cached) {
        entries.delete(sealedId);
        entries.set(sealedId, cached);
        return cached;
      }
      const material: ClientTlsMaterial = {
        // Names the material without revealing any of it (a hash of public and sealed parts only).
        id: createHash('sha256').update(sealedId).update('\u0000').update(tls.certificate ?? '').update('\u0000').update(tls.caBundle ?? '').digest('base64url').slice(0, 22),
        ...(tls.certificate !== undefined && tls.key ? { cert: tls.certificate, key: open(tls.key) } : {}),
        ...(tls.caBundle !== undefined ? { ca: tls.caBundle } : {}),
      };
      entries.set(sealedId, material);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
      return material;
    },
  };
}
