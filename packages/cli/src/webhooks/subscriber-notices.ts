// The notice the subscriber commands print on stderr for a subscriber Herald disabled by itself, so
// it is seen beside a table or a record (and stays out of JSON on stdout). Pure.

interface DisabledReason {
  code: string;
  message: string;
  at: string;
}

function reasonOf(value: unknown): { id: string; reason: DisabledReason } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, disabledReason } = value as { id?: unknown; disabledReason?: Partial<DisabledReason> };
  if (typeof id !== 'string' || typeof disabledReason !== 'object' || disabledReason === null) return undefined;
  if (typeof disabledReason.code !== 'string' || typeof disabledReason.message !== 'string' || typeof disabledReason.at !== 'string') return undefined;
  return { id, reason: disabledReason as DisabledReason };
}

/** One line per auto-disabled subscriber in a record or a page of them. */
export function disabledNotices(data: unknown): string[] {
  const items = typeof data === 'object' && data !== null && Array.isArray((data as { list?: unknown }).list) ? (data as { list: unknown[] }).list : [data];
  return items.flatMap((item) => {
    const found = reasonOf(item);
    if (!found) return [];
    const what = found.reason.code === 'AUTO_DISABLED' ? 'auto-disabled by Herald' : `disabled by Herald (${found.reason.code})`;
    return [`Notice: subscriber ${found.id} was ${what} at ${found.reason.at}: ${found.reason.message}. Re-enable: herald webhooks subscribers update ${found.id} --enabled true`];
  });
}
