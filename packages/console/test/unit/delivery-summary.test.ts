import { describe, expect, it } from 'vitest';
import { deliverySummary } from '../../src/screens/events/delivery-summary';

describe('delivery summary of an event', () => {
  it('counts rows by status in a fixed order', () => {
    expect(deliverySummary([])).toBe('no matching subscriber');
    expect(deliverySummary([{ status: 'PENDING' }, { status: 'DELIVERED' }, { status: 'DELIVERED' }, { status: 'FAILED' }])).toBe(
      '2 delivered, 1 failed, 1 pending',
    );
  });
});
