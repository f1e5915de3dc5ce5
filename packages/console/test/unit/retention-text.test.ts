import { describe, expect, it } from 'vitest';
import { keptFor, retentionText } from '../../src/screens/events/retention-text';

describe('retention in words', () => {
  it('days, one day, forever', () => {
    expect([keptFor(0), keptFor(1), keptFor(30), keptFor(0.5)]).toEqual(['forever', '1 day', '30 days', '0.5 days']);
  });

  it('names the source and lists per-type windows by type', () => {
    const text = retentionText({
      settledEventsDays: 7,
      byEventType: { 'ping.sent': 1, 'audit.logged': 0 },
      source: 'organization',
      hostDefault: { settledEventsDays: 30, byEventType: {} },
      updatedAt: '2026-11-25T08:00:00.000Z',
    });
    expect(text.summary).toBe("Settled events are kept 7 days (this organization's policy), then removed with their deliveries and attempts; events still being delivered are never removed.");
    expect(text.exceptions).toEqual(['audit.logged: forever', 'ping.sent: 1 day']);
    expect(retentionText({ settledEventsDays: 0, byEventType: {}, source: 'host', hostDefault: { settledEventsDays: 0, byEventType: {} }, updatedAt: null }).summary).toContain("kept forever (the host's default)");
  });
});
