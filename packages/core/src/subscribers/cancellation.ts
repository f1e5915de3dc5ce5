// A disabled or deleted subscriber's PENDING rows end FAILED with the reason, after the call that
// disabled it has answered.
import type { CoreContext } from '../context.js';
import { cancelPendingDeliveries } from '../model/event-status.js';

/**
 * Cancelling a large backlog takes longer than an API call should (seconds for thousands of rows
 * on a slow store), so it runs after the answer. Nothing depends on its timing: the subscriber is
 * already disabled or gone, publishers stop matching it, and the engine cancels any row of it
 * that it claims before this reaches it (also after a crash here).
 */
export function cancelInBackground(context: CoreContext, subscriberId: string, reason: string, now: Date): void {
  const cancelling = cancelPendingDeliveries(context.collections, context.compat, subscriberId, reason, now)
    .then(() => undefined)
    .catch((error: unknown) => {
      context.logger.error({ subscriberId, err: error instanceof Error ? error.message : String(error) }, 'cancelling a subscriber\'s pending deliveries failed; the engine cancels them when it claims them');
    })
    .finally(() => context.background.delete(cancelling));
  context.background.add(cancelling);
}
