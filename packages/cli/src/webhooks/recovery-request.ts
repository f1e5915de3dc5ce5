// `subscribers recover`: --since/--until/--status → a RecoveryRequest body, and what --wait needs
// (poll delays, the progress line). Pure: the current time is passed in.
import { CliError, ExitCode, usageError } from '../errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+[smhd])+$/;
/** RFC 3339 with a zone, as the server's `date-time` requires; seconds may be left out. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

export const recoverableStatuses = ['FAILED', 'DELIVERED'] as const;

function instantProblem(flag: string, text: string, reason?: string): CliError {
  const expected = 'a duration back from now (30m, 2h, 7d, 1h30m) or an ISO date-time with a zone (2025-01-31T00:00:00Z)';
  return usageError('INVALID_FLAG_VALUE', `${flag} must be ${expected}, got "${text}"${reason ? ` (${reason})` : ''}`);
}

function durationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([smhd])/g)) total += Number(amount) * (UNIT_MS[unit as string] ?? 0);
  return total;
}

/** V8 reads 2025-02-30 as March 2nd; a day the month does not have is refused instead. */
function isRealDay(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** `2h` → now minus two hours; an ISO date-time as given. Always returned as UTC ISO text. */
export function parseInstant(text: string, flag: string, now: Date): string {
  const value = text.trim();
  if (DURATION.test(value)) {
    const at = now.getTime() - durationMs(value);
    if (!Number.isSafeInteger(at) || at < 0) throw instantProblem(flag, text, 'that is before 1970');
    return new Date(at).toISOString();
  }
  const match = DATE_TIME.exec(value);
  if (match) {
    const at = Date.parse(value);
    if (!Number.isNaN(at) && isRealDay(Number(match[1]), Number(match[2]), Number(match[3]))) return new Date(at).toISOString();
    throw instantProblem(flag, text, 'not a real date or time');
  }
  throw instantProblem(flag, text);
}

/** Repeatable and comma-separated, any letter case; each status once. */
export function parseRecoverStatuses(values: readonly string[]): string[] {
  const statuses = values.flatMap((value) => value.split(',')).map((value) => value.trim().toUpperCase());
  for (const status of statuses) {
    if (!(recoverableStatuses as readonly string[]).includes(status)) {
      throw usageError('INVALID_FLAG_VALUE', `--status must be ${recoverableStatuses.join(' or ')}, got "${status}"`);
    }
  }
  return [...new Set(statuses)];
}

export interface RecoverFlags {
  readonly since: string;
  readonly until?: string | undefined;
  readonly statuses: readonly string[];
}

export function recoveryRequestBody(flags: RecoverFlags, now: Date): Record<string, unknown> {
  const since = parseInstant(flags.since, '--since', now);
  const until = flags.until === undefined ? undefined : parseInstant(flags.until, '--until', now);
  if (until !== undefined && Date.parse(until) <= Date.parse(since)) {
    throw usageError('INVALID_FLAG_VALUE', `--until (${until}) must be after --since (${since})`);
  }
  const statuses = parseRecoverStatuses(flags.statuses);
  return { since, ...(until === undefined ? {} : { until }), ...(statuses.length > 0 ? { statuses } : {}) };
}

export interface RecoveryView {
  readonly recoveryId: string;
  readonly subscriberId: string;
  readonly status: string;
  readonly requeued: number;
}

/** The fields `recover` relies on; anything else from the server is a failure, not a crash. */
export function asRecovery(data: unknown): RecoveryView {
  const candidate = data as Partial<Record<keyof RecoveryView, unknown>> | null | undefined;
  if (
    typeof candidate?.recoveryId === 'string' &&
    typeof candidate.subscriberId === 'string' &&
    typeof candidate.status === 'string' &&
    typeof candidate.requeued === 'number'
  ) {
    return candidate as RecoveryView;
  }
  throw new CliError('UNEXPECTED_RESPONSE', `expected a recovery from the server, got: ${JSON.stringify(data)?.slice(0, 120)}`, ExitCode.failed);
}

/** The job takes one step a second: polls start under that and back off to every few seconds. */
export const FIRST_POLL_MS = 500;
export const MAX_POLL_MS = 5_000;

export function nextPollDelay(previousMs: number): number {
  return Math.min(Math.round(previousMs * 1.5), MAX_POLL_MS);
}

export function recoveryProgressText(recovery: RecoveryView): string {
  const rows = `${recovery.requeued} ${recovery.requeued === 1 ? 'delivery' : 'deliveries'} sent again so far`;
  return `Recovery ${recovery.recoveryId} of ${recovery.subscriberId}: ${recovery.status}, ${rows}`;
}
