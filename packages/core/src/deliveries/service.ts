// herald.deliveries: per-row operations.
import type { CoreContext } from '../context.js';
import { NotFoundError } from '../errors/index.js';
import type { DeliveryService } from '../types.js';
import { toEventDelivery } from './mapping.js';
import { requeueRows } from './requeue.js';

export function createDeliveryService(context: CoreContext): DeliveryService {
  const { collections } = context;
  return {
    async retry(scope, deliveryId) {
      const row = await collections.deliveries.findOne({ _id: deliveryId }, { projection: { body: 0, attemptHistory: 0 } });
      if (!row || row.orgId !== scope.orgId) throw new NotFoundError(`webhook delivery "${deliveryId}" not found`);
      await requeueRows(context, { _id: deliveryId }, [row.eventId]);
      const updated = await collections.deliveries.findOne({ _id: deliveryId }, { projection: { body: 0, attemptHistory: 0 } });
      return toEventDelivery(updated ?? row);
    },
  };
}
