// What Herald should hold for a WebhookSubscriber (pure).
import { effectiveHandle } from '../crd/handle.js';
import type { WebhookSubscriberResource } from '../crd/types.js';

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_SECRET_KEY = 'secret';
/** The patterns that mean every event. */
export const EVERY_EVENT: readonly string[] = ['*'];
const DISPLAY_NAME_MAX = 255;

/** "<namespace>/<name>", cut to Herald's 255 characters (a namespace plus a 253-character name can exceed it). */
export function defaultDisplayName(namespace: string, name: string): string {
  const full = `${namespace}/${name}`;
  return full.length <= DISPLAY_NAME_MAX ? full : `${full.slice(0, DISPLAY_NAME_MAX - 1)}…`;
}

export interface DesiredSubscriber {
  id: string;
  displayName: string;
  targetUrl: string;
  events: string[];
  enabled: boolean;
  timeoutMs: number;
  /** null: not set on the resource, Herald's default applies. */
  maxConcurrency: number | null;
  rateLimitPerSecond: number | null;
  /** null: not set on the resource, Herald's default egress applies. */
  egressProxy: string | null;
  /** null: no payload filter. */
  filter: Record<string, unknown> | null;
  ordering: 'aggregate' | 'none';
}

export function desiredSubscriber(resource: WebhookSubscriberResource): DesiredSubscriber {
  const namespace = resource.metadata?.namespace ?? '';
  const name = resource.metadata?.name ?? '';
  const spec = resource.spec;
  return {
    id: effectiveHandle(namespace, name, spec.handle),
    displayName: spec.displayName ?? defaultDisplayName(namespace, name),
    targetUrl: spec.targetUrl,
    // Herald refuses an empty list ("*" says every event); omitted, or empty in an object written
    // before the CRD refused it, meant every event, and still does.
    events: spec.events !== undefined && spec.events.length > 0 ? spec.events : [...EVERY_EVENT],
    // The CRD defaults these; the fallbacks cover objects written before a default existed.
    enabled: spec.enabled ?? true,
    timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxConcurrency: spec.maxConcurrency ?? null,
    rateLimitPerSecond: spec.rateLimitPerSecond ?? null,
    egressProxy: spec.egressProxy ?? null,
    filter: spec.filter ?? null,
    ordering: spec.ordering ?? 'none',
  };
}
