import { describe, expect, it } from 'vitest';
import {
  asRecovery,
  FIRST_POLL_MS,
  MAX_POLL_MS,
  nextPollDelay,
  parseInstant,
  parseRecoverStatuses,
  recoveryProgressText,
  recoveryRequestBody,
} from '../src/webhooks/recovery-request.js';

const now = new Date('2025-01-31T12:00:00.000Z');

describe('parseInstant', () => {
  it.each([
    ['30s', '2025-01-31T11:59:30.000Z'],
    ['15m', '2025-01-31T11:45:00.000Z'],
    ['2h', '2025-01-31T10:00:00.000Z'],
    ['7d', '2025-01-24T12:00:00.000Z'],
    ['1h30m', '2025-01-31T10:30:00.000Z'],
    ['0s', '2025-01-31T12:00:00.000Z'],
    ['2025-01-30T08:00:00Z', '2025-01-30T08:00:00.000Z'],
    ['2025-01-30T08:00Z', '2025-01-30T08:00:00.000Z'],
    ['2025-01-30T10:00:00.5+02:00', '2025-01-30T08:00:00.500Z'],
    [' 2h ', '2025-01-31T10:00:00.000Z'],
  ])('%s → %s', (text, expected) => {
    expect(parseInstant(text, '--since', now)).toBe(expected);
  });

  it.each([
    ['2 hours', ''],
    ['2w', ''],
    ['-2h', ''],
    ['h', ''],
    ['', ''],
    ['2025-01-30', ''],
    ['2025-01-30T08:00:00', ''],
    ['yesterday', ''],
    ['2025-02-30T00:00:00Z', 'not a real date or time'],
    ['2025-01-31T25:00:00Z', 'not a real date or time'],
    ['99999999d', 'before 1970'],
  ])('refuses %j as a usage error', (text, reason) => {
    let error: unknown;
    try {
      parseInstant(text, '--since', now);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'INVALID_FLAG_VALUE', exitCode: 2 });
    expect((error as Error).message).toContain(`--since must be a duration back from now (30m, 2h, 7d, 1h30m) or an ISO date-time with a zone`);
    expect((error as Error).message).toContain(reason);
  });
});

describe('recoveryRequestBody', () => {
  it('sends since alone by default (the server defaults until and statuses)', () => {
    expect(recoveryRequestBody({ since: '2h', statuses: [] }, now)).toStrictEqual({ since: '2025-01-31T10:00:00.000Z' });
  });

  it('adds until and the statuses, upper-cased, split on commas, each once', () => {
    expect(recoveryRequestBody({ since: '1d', until: '1h', statuses: ['failed', 'DELIVERED,FAILED'] }, now)).toStrictEqual({
      since: '2025-01-30T12:00:00.000Z',
      until: '2025-01-31T11:00:00.000Z',
      statuses: ['FAILED', 'DELIVERED'],
    });
  });

  it('refuses until at or before since, and unknown statuses', () => {
    expect(() => recoveryRequestBody({ since: '1h', until: '2h', statuses: [] }, now)).toThrow('--until (2025-01-31T10:00:00.000Z) must be after --since (2025-01-31T11:00:00.000Z)');
    expect(() => parseRecoverStatuses(['PENDING'])).toThrow('--status must be FAILED or DELIVERED, got "PENDING"');
    expect(() => parseRecoverStatuses(['FAILED,'])).toThrow('got ""');
  });
});

describe('waiting', () => {
  it('polls sooner than the job steps at first, then backs off to a bound', () => {
    const delays = [FIRST_POLL_MS];
    for (let index = 0; index < 10; index++) delays.push(nextPollDelay(delays.at(-1)!));
    expect(delays.slice(0, 4)).toStrictEqual([500, 750, 1125, 1688]);
    expect(delays.at(-1)).toBe(MAX_POLL_MS);
  });

  it('describes progress, and refuses an answer that is not a recovery', () => {
    const recovery = { recoveryId: 'rec_0123456789abcdef', subscriberId: 'billing', status: 'RUNNING', requeued: 1 };
    expect(recoveryProgressText(asRecovery(recovery))).toBe('Recovery rec_0123456789abcdef of billing: RUNNING, 1 delivery sent again so far');
    expect(recoveryProgressText({ ...recovery, requeued: 400 })).toContain('400 deliveries sent again so far');
    expect(() => asRecovery({ ok: true })).toThrow('expected a recovery from the server');
    expect(() => asRecovery(undefined)).toThrow('expected a recovery from the server');
  });
});
