import { describe, expect, test } from 'vitest';
import {
  aggregateEventStatus,
  canTransitionDelivery,
  canTransitionEvent,
  eventStatusAfterRowChange,
  isTerminalDelivery,
} from '../../src/model/delivery-status.js';

describe('delivery transitions', () => {
  test.each([
    ['PENDING', 'IN_FLIGHT', true],
    ['IN_FLIGHT', 'DELIVERED', true],
    ['IN_FLIGHT', 'PENDING', true],
    ['IN_FLIGHT', 'FAILED', true],
    ['PENDING', 'FAILED', true],
    ['FAILED', 'PENDING', true],
    ['DELIVERED', 'PENDING', true],
    ['PENDING', 'DELIVERED', false],
    ['DELIVERED', 'FAILED', false],
    ['FAILED', 'DELIVERED', false],
    ['DELIVERED', 'IN_FLIGHT', false],
  ] as const)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(canTransitionDelivery(from, to)).toBe(allowed);
  });
  test('terminal statuses', () => {
    expect(isTerminalDelivery('DELIVERED')).toBe(true);
    expect(isTerminalDelivery('FAILED')).toBe(true);
    expect(isTerminalDelivery('IN_FLIGHT')).toBe(false);
  });
});

describe('event transitions', () => {
  test.each([
    ['PENDING', 'DISPATCHED', true],
    ['PENDING', 'ALL_DELIVERED', true],
    ['DISPATCHED', 'FAILED', true],
    ['FAILED', 'DISPATCHED', true],
    ['PENDING', 'FAILED', false],
    ['DISPATCHED', 'PENDING', false],
    ['ALL_DELIVERED', 'PENDING', false],
  ] as const)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(canTransitionEvent(from, to)).toBe(allowed);
  });
});

describe('aggregation', () => {
  test('no rows or all delivered → ALL_DELIVERED', () => {
    expect(aggregateEventStatus([])).toBe('ALL_DELIVERED');
    expect(aggregateEventStatus(['DELIVERED', 'DELIVERED'])).toBe('ALL_DELIVERED');
  });
  test('any row not terminal → DISPATCHED, even with failures', () => {
    expect(aggregateEventStatus(['FAILED', 'PENDING'])).toBe('DISPATCHED');
    expect(aggregateEventStatus(['DELIVERED', 'IN_FLIGHT'])).toBe('DISPATCHED');
  });
  test('all terminal with one FAILED → FAILED', () => {
    expect(aggregateEventStatus(['DELIVERED', 'FAILED'])).toBe('FAILED');
  });
  test('a PENDING event stays PENDING until its fan-out completes', () => {
    expect(eventStatusAfterRowChange('PENDING', ['DELIVERED'])).toBe('PENDING');
    expect(eventStatusAfterRowChange('DISPATCHED', ['DELIVERED'])).toBe('ALL_DELIVERED');
    expect(eventStatusAfterRowChange('ALL_DELIVERED', ['PENDING'])).toBe('DISPATCHED');
  });
});
