// What every service of core shares: storage, crypto, catalog, clock, and the engine's fast path.
import type { SecretBox } from './crypto/secret-box.js';
import type { EngineLogger } from './shared/logger.js';
import type { FastPath } from './handover/fast-path.js';
import type { Catalog } from './model/catalog.js';
import type { EmitOperational } from './model/operational.js';
import type { Collections } from './storage/collections.js';
import type { StoreCompat } from './storage/compat.js';
import type { SubscriberDirectory } from './model/subscriber-directory.js';
import type { PrincipalDirectory } from './shared/scope.js';
import type { SigningProfile } from './shared/signing.js';

export interface CoreContext {
  collections: Collections;
  compat: StoreCompat;
  directory: SubscriberDirectory;
  secretBox: SecretBox;
  catalog: Catalog;
  signingProfile: SigningProfile;
  principals: PrincipalDirectory | undefined;
  logger: EngineLogger;
  now(): Date;
  /** How long a replaced secret keeps signing (DeliveryOptions.secretRotationOverlapMs). */
  secretRotationOverlapMs: number;
  /** The local engine's fast path (a no-op one when the engine does not run here). */
  engine: FastPath;
  /** Publishes one of Herald's own events (model/operational.ts); set once the services exist. */
  emit: EmitOperational;
  /** The egress proxy names a subscriber may choose (engine/egress/proxy-config.ts); absent: only `none`. */
  egressProxyNames?: ReadonlySet<string>;
  /** Work that goes on after its call answered (a subscriber's cancellation); `close()` waits for it. */
  background: Set<Promise<void>>;
}

export const DEFAULT_SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
