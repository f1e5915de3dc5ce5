// What the delivery service offers (deliveries/service.ts implements it; Herald exposes it).
import type { Recovery, RecoveryRequest, WebhookEventDelivery } from '../schemas/index.js';
import type { Scope } from '../shared/scope.js';

export interface DeliveryService {
  /** One row back to PENDING (due now); its event back to DISPATCHED. */
  retry(scope: Scope, deliveryId: string): Promise<WebhookEventDelivery>;
  /**
   * Sends a subscriber's settled deliveries created in a time range (default: FAILED ones) again,
   * as new attempts; answers at once with the recovery, which the engine's jobs carry out.
   */
  recover(scope: Scope, subscriberHandle: string, input: RecoveryRequest): Promise<Recovery>;
  recovery(scope: Scope, subscriberHandle: string, recoveryId: string): Promise<Recovery>;
}
