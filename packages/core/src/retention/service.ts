// An organization's retention policy: read and replaced through the API, applied by the hourly
// retention job (engine/jobs.ts). One document per organization (`org_state`), one round trip each.
import type { CoreContext } from '../context.js';
import type { RetentionPolicy } from '../rules/retention-windows.js';
import { upsertWithRetry } from '../storage/collections.js';
import type { RetentionService } from './contract.js';
import { retentionView, storedRetention } from '../rules/retention-policy.js';
import { validateRetentionInput } from './validation.js';

export function createRetentionService(context: CoreContext, host: RetentionPolicy): RetentionService {
  const { collections, compat } = context;
  return {
    async get(scope) {
      const state = await compat.retry(() => collections.orgState.findOne({ _id: scope.orgId }, { projection: { retention: 1 } }));
      return retentionView(host, state?.retention ?? undefined);
    },
    async set(scope, input) {
      const valid = validateRetentionInput(input);
      const empty = valid.settledEventsDays === undefined && valid.byEventType === undefined;
      const stored = storedRetention(valid, context.now(), scope.actor);
      // An upsert: the org's state document may not exist yet (no subscriber written so far).
      await upsertWithRetry(() =>
        compat.write(() => collections.orgState.updateOne({ _id: scope.orgId }, empty ? { $unset: { retention: '' } } : { $set: { retention: stored } }, { upsert: true })),
      );
      return retentionView(host, empty ? undefined : stored);
    },
  };
}
