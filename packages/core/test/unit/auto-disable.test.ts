// When a subscriber that keeps failing is disabled (rules/auto-disable.ts), pure.
import { expect, test } from 'vitest';
import { autoDisableMessage, autoDisableVerdict, DEFAULT_AUTO_DISABLE_AFTER_MS } from '../../src/rules/auto-disable.js';

const DAY = 86_400_000;
const start = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(start.getTime() + ms);
const base = { health: { state: 'open' as const, failingSince: start }, lastSuccessAt: null, enabledSince: null, afterMs: 5 * DAY };

test('the default limit is five days', () => {
  expect(DEFAULT_AUTO_DISABLE_AFTER_MS).toBe(5 * DAY);
});

test('failing or open for the whole limit disables; a moment less does not', () => {
  expect(autoDisableVerdict({ ...base, now: at(5 * DAY) })).toEqual({ disable: true, failingFrom: start });
  expect(autoDisableVerdict({ ...base, now: at(5 * DAY - 1) }).disable).toBe(false);
  expect(autoDisableVerdict({ ...base, health: { state: 'failing', failingSince: start }, now: at(6 * DAY) }).disable).toBe(true);
});

test('a healthy endpoint is never disabled, however old its record', () => {
  expect(autoDisableVerdict({ ...base, health: { state: 'healthy', failingSince: start }, now: at(60 * DAY) }).disable).toBe(false);
});

test('a success inside the window, or being enabled again inside it, restarts the count', () => {
  expect(autoDisableVerdict({ ...base, lastSuccessAt: at(2 * DAY), now: at(6 * DAY) })).toEqual({ disable: false, failingFrom: at(2 * DAY) });
  expect(autoDisableVerdict({ ...base, lastSuccessAt: at(2 * DAY), now: at(7 * DAY) }).disable).toBe(true);
  expect(autoDisableVerdict({ ...base, enabledSince: at(3 * DAY), now: at(6 * DAY) })).toEqual({ disable: false, failingFrom: at(3 * DAY) });
  // A success before the run of failures began changes nothing.
  expect(autoDisableVerdict({ ...base, lastSuccessAt: at(-DAY), now: at(5 * DAY) }).disable).toBe(true);
});

test('a limit of 0 turns it off', () => {
  expect(autoDisableVerdict({ ...base, afterMs: 0, now: at(365 * DAY) }).disable).toBe(false);
});

test('the message names the start of the failures, the limit and the last error', () => {
  expect(autoDisableMessage(start, 5 * DAY, 'HTTP 503')).toBe(
    'every delivery has failed since 2026-01-01T00:00:00.000Z, longer than the auto-disable limit of 5d (last error: HTTP 503); enable it again to resume, and recover the failed range',
  );
  expect(autoDisableMessage(start, 90 * 60_000, null)).toContain('limit of 90m;');
  expect(autoDisableMessage(start, 1_500, null)).toContain('limit of 1500ms;');
});
