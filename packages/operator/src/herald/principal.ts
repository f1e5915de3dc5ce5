// Which principal the operator's API token is, so `createdBy` tells our subscribers from foreign
// ones. Herald has no "who am I" endpoint, so unless configured, the operator creates a disabled
// probe subscriber, reads its `createdBy` and deletes it again (once per process).
import { randomBytes } from 'node:crypto';
import type { HeraldClient } from './client.js';

export const PROBE_TARGET_URL = 'https://operator-probe.invalid/';

export function principalResolver(client: Pick<HeraldClient, 'createSubscriber' | 'deleteSubscriber'>, configured: string | undefined): () => Promise<string> {
  let known: Promise<string> | undefined = configured ? Promise.resolve(configured) : undefined;
  return () => {
    known ??= probe(client).catch((error: unknown) => {
      known = undefined; // try again on the next reconcile
      throw error;
    });
    return known;
  };
}

async function probe(client: Pick<HeraldClient, 'createSubscriber' | 'deleteSubscriber'>): Promise<string> {
  const id = `herald-operator-probe-${randomBytes(6).toString('hex')}`;
  const created = await client.createSubscriber({
    id,
    displayName: 'herald-operator identity probe (deleted immediately)',
    targetUrl: PROBE_TARGET_URL,
    enabled: false,
    events: [],
  });
  await client.deleteSubscriber(id);
  return created.createdBy;
}
