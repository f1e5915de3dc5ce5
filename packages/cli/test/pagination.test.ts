import { describe, expect, it } from 'vitest';
import { nextLinkFromHeader, nextPageUrl, pageItems } from '../src/api/pagination.js';
import { RequestUrl } from '../src/http/endpoint.js';

const page = (offset: number, count: number, total: number, limit = 20) => ({
  list: Array.from({ length: count }, (_, index) => offset + index),
  count,
  pagination: { total, limit, offset },
});

describe('nextPageUrl', () => {
  const url = new RequestUrl('https://h', '/api/v0.9/webhook-events', '?status=FAILED&limit=20');

  it('advances offset by the items received until total is reached', () => {
    expect(nextPageUrl(url, page(0, 20, 45), undefined)?.search).toBe('?status=FAILED&limit=20&offset=20');
    expect(nextPageUrl(url, page(40, 5, 45), undefined)).toBeUndefined();
    expect(nextPageUrl(url, page(0, 0, 45), undefined)).toBeUndefined();
  });

  it('keeps an escaped ".." segment of the current path when it advances the offset', () => {
    const escaped = new RequestUrl('https://h', '/api/v1/orgs/%2E%2E/projects', '?limit=2');
    expect(nextPageUrl(escaped, page(0, 2, 5, 2), undefined)?.href).toBe('https://h/api/v1/orgs/%2E%2E/projects?limit=2&offset=2');
  });

  it('stops on bodies that are not pages', () => {
    expect(nextPageUrl(url, { list: [1] }, undefined)).toBeUndefined();
    expect(nextPageUrl(url, undefined, undefined)).toBeUndefined();
  });

  it('follows nextCursor when the page has one, dropping the offset; a cursor request without one is the last page', () => {
    const atOffset = new RequestUrl('https://h', '/api/v0.9/webhook-events', '?status=FAILED&limit=20&offset=40');
    expect(nextPageUrl(atOffset, { ...page(40, 20, 100), nextCursor: 'abc.def' }, undefined)?.search).toBe('?status=FAILED&limit=20&cursor=abc.def');
    const byCursor = new RequestUrl('https://h', '/api/v0.9/webhook-events', '?limit=20&cursor=abc.def');
    expect(nextPageUrl(byCursor, { ...page(60, 20, 100), nextCursor: 'ghi.jkl' }, undefined)?.search).toBe('?limit=20&cursor=ghi.jkl');
    // The total says more would follow; the server, which pages by cursor, says this is the last.
    expect(nextPageUrl(byCursor, page(60, 20, 100), undefined)).toBeUndefined();
    // A list without pagination (a subscriber's deliveries) pages by its cursor alone.
    const deliveries = new RequestUrl('https://h', '/api/v0.9/webhook-subscribers/billing/deliveries', '');
    expect(nextPageUrl(deliveries, { list: [1], nextCursor: 'x.y' }, undefined)?.search).toBe('?cursor=x.y');
    expect(nextPageUrl(deliveries, { list: [1] }, undefined)).toBeUndefined();
  });

  it('prefers a Link rel="next" header, resolved against the current URL', () => {
    expect(nextPageUrl(url, page(0, 20, 45), '</api/v0.9/webhook-events?cursor=abc>; rel="next"')?.href).toBe('https://h/api/v0.9/webhook-events?cursor=abc');
  });
});

describe('nextLinkFromHeader', () => {
  it('finds rel=next among several links and relation lists', () => {
    expect(nextLinkFromHeader('<https://h/a?page=1>; rel="prev", <https://h/a?page=3>; rel="next"')).toBe('https://h/a?page=3');
    expect(nextLinkFromHeader('<https://h/b>; rel="last next"')).toBe('https://h/b');
    expect(nextLinkFromHeader('<https://h/c>; rel=next')).toBe('https://h/c');
    expect(nextLinkFromHeader('<https://h/d>; rel="nextish"')).toBeUndefined();
    expect(nextLinkFromHeader(undefined)).toBeUndefined();
  });
});

describe('pageItems', () => {
  it('takes list, array elements or the value itself', () => {
    expect(pageItems(page(0, 2, 2))).toStrictEqual([0, 1]);
    expect(pageItems([1, 2])).toStrictEqual([1, 2]);
    expect(pageItems({ id: 'x' })).toStrictEqual([{ id: 'x' }]);
  });
});
