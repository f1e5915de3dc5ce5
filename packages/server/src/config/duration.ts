// Human durations in configuration and CLI flags ("500ms", "5s", "2m", "1h", "30d"); pure.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+)(ms|s|m|h|d)?$/;

/** Parses a duration into milliseconds; a bare integer is milliseconds. Returns undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2] ?? 'ms';
  const factor = UNIT_MS[unit];
  if (factor === undefined || !Number.isSafeInteger(amount * factor)) return undefined;
  return amount * factor;
}
