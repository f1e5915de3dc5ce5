// The recover form's values and the API request they make (pure, unit-tested). A datetime-local
// input holds a local wall-clock time with no zone; the API wants an ISO instant, so the browser's
// zone converts it both ways.
import type { RecoverableStatus, RecoveryRequest } from '../../api/types';

export interface RecoveryForm {
  since: string;
  until: string;
  statuses: RecoverableStatus[];
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DDTHH:mm` in local time, the value format of a datetime-local input. */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The usual case after an outage: the last hour's failed deliveries. */
export function defaultRecoveryForm(now: Date = new Date()): RecoveryForm {
  return { since: toLocalInput(new Date(now.getTime() - 60 * 60 * 1000)), until: '', statuses: ['FAILED'] };
}

function instant(local: string): string | undefined {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The request, or what is wrong with the form in words (checked here so the API is not asked for nothing). */
export function recoveryRequest(form: RecoveryForm): { request: RecoveryRequest } | { problem: string } {
  const since = instant(form.since);
  if (!since) return { problem: 'Choose when the range starts.' };
  if (form.statuses.length === 0) return { problem: 'Choose at least one status to send again.' };
  if (!form.until) return { request: { since, statuses: form.statuses } };
  const until = instant(form.until);
  if (!until) return { problem: 'The end of the range is not a valid date and time.' };
  if (until <= since) return { problem: 'The end of the range must come after its start.' };
  return { request: { since, until, statuses: form.statuses } };
}
