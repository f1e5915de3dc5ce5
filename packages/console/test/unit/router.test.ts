import { describe, expect, it } from 'vitest';
import { href, parseRoute, type Route } from '../../src/router';

describe('hash routes', () => {
  it('parses every screen', () => {
    expect(parseRoute('')).toEqual({ name: 'subscribers', offset: 0 });
    expect(parseRoute('#/subscribers?offset=40')).toEqual({ name: 'subscribers', offset: 40 });
    expect(parseRoute('#/subscribers/new')).toEqual({ name: 'subscriber-new' });
    expect(parseRoute('#/subscribers/billing')).toEqual({ name: 'subscriber', id: 'billing' });
    expect(parseRoute('#/subscribers/billing/edit')).toEqual({ name: 'subscriber-edit', id: 'billing' });
    expect(parseRoute('#/events?status=FAILED&offset=20')).toEqual({ name: 'events', offset: 20, status: 'FAILED' });
    expect(parseRoute('#/events/3b24')).toEqual({ name: 'event', id: '3b24' });
    expect(parseRoute('#/event-types')).toEqual({ name: 'event-types' });
    expect(parseRoute('#/event-types/order.created')).toEqual({ name: 'event-type', type: 'order.created' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'not-found', path: '/nowhere' });
  });

  it('ignores offsets and statuses it does not know', () => {
    expect(parseRoute('#/events?status=BOGUS&offset=-5')).toEqual({ name: 'events', offset: 0, status: undefined });
    expect(parseRoute('#/subscribers?offset=abc')).toEqual({ name: 'subscribers', offset: 0 });
  });

  it('a cursor names where an events page begins, and wins over an offset (the API takes one or the other)', () => {
    expect(parseRoute('#/events?status=FAILED&cursor=abc.def')).toEqual({ name: 'events', offset: 0, status: 'FAILED', cursor: 'abc.def' });
    expect(parseRoute('#/events?offset=40&cursor=abc.def')).toEqual({ name: 'events', offset: 0, status: undefined, cursor: 'abc.def' });
    expect(href({ name: 'events', offset: 40, cursor: 'a-b_c.d' })).toBe('#/events?cursor=a-b_c.d');
  });

  it('round-trips ids that need escaping', () => {
    const routes: Route[] = [
      { name: 'subscriber', id: 'a.b_c-d' },
      { name: 'event', id: 'evt:1/2?' },
      { name: 'events', offset: 60, status: 'ALL_DELIVERED' },
      { name: 'events', offset: 0, status: 'FAILED', cursor: 'WzEsImV2ZW50cyJd.x_y-z' },
      { name: 'subscribers', offset: 0 },
      { name: 'event-type', type: 'herald.recovery_completed' },
      { name: 'event-types' },
    ];
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
  });
});
