// Default subscriber handle derived from a CR's namespace and name (pure).
import { createHash } from 'node:crypto';

export const HANDLE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_HANDLE_LENGTH = 128;
const HASH_LENGTH = 12;

/**
 * "<namespace>.<name>": namespaces are DNS labels (no dots) so the first dot separates them and the
 * handle is unique per CR. When longer than the 128 characters a handle may have, a prefix is kept
 * and a hash of the full pair appended, which keeps it stable and (practically) unique.
 */
export function deriveHandle(namespace: string, name: string): string {
  const full = `${namespace}.${name}`;
  if (full.length <= MAX_HANDLE_LENGTH) return full;
  const digest = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, HASH_LENGTH);
  const prefix = full.slice(0, MAX_HANDLE_LENGTH - HASH_LENGTH - 1).replace(/[._-]+$/, '');
  return `${prefix}-${digest}`;
}

export function effectiveHandle(namespace: string, name: string, explicitHandle: string | undefined): string {
  return explicitHandle ?? deriveHandle(namespace, name);
}
