// What every service of core shares: storage, crypto, catalog, clock, and the engine's fast path.
import type { SecretBox } from './crypto/secret-box.js';
import type { EngineLogger } from './engine/index.js';
import type { Catalog } from './events/catalog.js';
import type { Collections } from './storage/collections.js';
import type { PrincipalDirectory, SigningProfile } from './types.js';

export interface CoreContext {
  collections: Collections;
  secretBox: SecretBox;
  catalog: Catalog;
  signingProfile: SigningProfile;
  principals: PrincipalDirectory | undefined;
  logger: EngineLogger;
  now(): Date;
  /** How long a replaced secret keeps signing (DeliveryOptions.secretRotationOverlapMs). */
  secretRotationOverlapMs: number;
  /** Tells the engine that these rows were just written as PENDING (fast path). */
  notifyEngine(deliveryIds: string[]): void;
}

export const DEFAULT_SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
