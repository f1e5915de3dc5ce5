// Flags of `retention set` → a WebhookRetentionPolicyRequest body. Pure; the server checks ranges
// and event types again and names the field it refuses.
import { usageError } from '../errors.js';

const WHOLE_DAYS = /^\d{1,6}$/;

function days(flag: string, text: string): number {
  if (!WHOLE_DAYS.test(text)) throw usageError('INVALID_FLAG_VALUE', `${flag} must be a whole number of days (0 keeps forever), got "${text}"`);
  return Number(text);
}

/** `--days N` and `--type TYPE=DAYS` (repeatable); `--host-default` alone clears the policy. */
export function retentionRequestFromFlags(flags: { days?: string | undefined; types: readonly string[]; hostDefault: boolean }): Record<string, unknown> {
  if (flags.hostDefault) {
    if (flags.days !== undefined || flags.types.length > 0) throw usageError('CONFLICTING_FLAGS', '--host-default cannot be combined with --days or --type');
    return {};
  }
  if (flags.days === undefined && flags.types.length === 0) {
    throw usageError('MISSING_FLAG', 'give --days, --type TYPE=DAYS, or --host-default');
  }
  const body: Record<string, unknown> = {};
  if (flags.days !== undefined) body.settledEventsDays = days('--days', flags.days);
  if (flags.types.length > 0) {
    const byEventType: Record<string, number> = {};
    for (const entry of flags.types) {
      const separator = entry.lastIndexOf('=');
      if (separator <= 0) throw usageError('INVALID_FLAG_VALUE', `--type must be TYPE=DAYS (e.g. audit.logged=365), got "${entry}"`);
      const type = entry.slice(0, separator);
      if (type in byEventType) throw usageError('INVALID_FLAG_VALUE', `--type names ${type} twice`);
      byEventType[type] = days(`--type ${type}`, entry.slice(separator + 1));
    }
    body.byEventType = byEventType;
  }
  return body;
}
