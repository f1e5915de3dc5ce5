// herald.deliveries: per-row operations.
import type { CoreContext } from '../context.js';
import { NotFoundError } from '../shared/errors.js';
import type { DeliveryService } from './contract.js';
import { SUMMARY_PROJECTION, toEventDelivery } from '../model/delivery-views.js';
import { getRecovery, startRecovery } from './recovery.js';
import { requeueRows } from './requeue.js';
import { findRow } from '../model/delivery-rows.js';

export function createDeliveryService(context: CoreContext): DeliveryService {
  const { collections } = context;
  return {
    async retry(scope, deliveryId) {
      const row = await findRow(collections, deliveryId, SUMMARY_PROJECTION);
      if (!row || row.orgId !== scope.orgId) throw new NotFoundError(`webhook delivery "${deliveryId}" not found`);
      await requeueRows(context, { _id: deliveryId });
      const updated = await findRow(collections, deliveryId, SUMMARY_PROJECTION);
      return toEventDelivery(updated ?? row);
    },
    recover: (scope, handle, input) => startRecovery(context, scope, handle, input),
    recovery: (scope, handle, recoveryId) => getRecovery(context, scope, handle, recoveryId),
  };
}
