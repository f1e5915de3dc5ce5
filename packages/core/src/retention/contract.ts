// What the retention service offers (retention/service.ts implements it; Herald exposes it).
import type { WebhookRetentionPolicy } from '../schemas/retention.js';
import type { Scope } from '../shared/scope.js';

export interface RetentionService {
  /** The policy that applies to the organization's settled events, and the host default. */
  get(scope: Scope): Promise<WebhookRetentionPolicy>;
  /** Replaces the organization's policy; `{}` returns it to the host's. Takes effect at the next run. */
  set(scope: Scope, input: unknown): Promise<WebhookRetentionPolicy>;
}
