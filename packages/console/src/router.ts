// Hash routes (#/events/…): the host serves one index.html, deep links and reloads work without
// any server-side fallback, and the query part of a hash never reaches the server's logs.
import { useEffect, useState } from 'preact/hooks';
import { EVENT_STATUSES, type EventStatus } from './api/types';

export type Route =
  | { name: 'subscribers'; offset: number }
  | { name: 'subscriber-new' }
  | { name: 'subscriber'; id: string }
  | { name: 'subscriber-edit'; id: string }
  | { name: 'events'; offset: number; status?: EventStatus; cursor?: string }
  | { name: 'event'; id: string }
  | { name: 'event-types' }
  | { name: 'event-type'; type: string }
  | { name: 'not-found'; path: string };

function offsetOf(params: URLSearchParams): number {
  const value = Number(params.get('offset'));
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function statusOf(params: URLSearchParams): EventStatus | undefined {
  const value = params.get('status');
  return EVENT_STATUSES.find((status) => status === value);
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '') || '/subscribers';
  const [rawPath = '', rawQuery = ''] = text.split('?', 2);
  const params = new URLSearchParams(rawQuery);
  const parts = rawPath.split('/').filter(Boolean).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  const [section, id, action] = parts;
  if (section === 'subscribers') {
    if (id === undefined) return { name: 'subscribers', offset: offsetOf(params) };
    if (id === 'new' && action === undefined) return { name: 'subscriber-new' };
    if (action === undefined) return { name: 'subscriber', id };
    if (action === 'edit' && parts.length === 3) return { name: 'subscriber-edit', id };
  }
  if (section === 'events') {
    if (id === undefined) {
      const cursor = params.get('cursor');
      // A cursor names where the page begins; the API refuses it with an offset, so it wins.
      return cursor ? { name: 'events', offset: 0, status: statusOf(params), cursor } : { name: 'events', offset: offsetOf(params), status: statusOf(params) };
    }
    if (action === undefined) return { name: 'event', id };
  }
  if (section === 'event-types') {
    if (id === undefined) return { name: 'event-types' };
    if (action === undefined) return { name: 'event-type', type: id };
  }
  return { name: 'not-found', path: rawPath };
}

export function href(route: Route): string {
  const id = (value: string) => encodeURIComponent(value);
  switch (route.name) {
    case 'subscribers':
      return route.offset > 0 ? `#/subscribers?offset=${route.offset}` : '#/subscribers';
    case 'subscriber-new':
      return '#/subscribers/new';
    case 'subscriber':
      return `#/subscribers/${id(route.id)}`;
    case 'subscriber-edit':
      return `#/subscribers/${id(route.id)}/edit`;
    case 'events': {
      const params = new URLSearchParams();
      if (route.status) params.set('status', route.status);
      if (route.cursor) params.set('cursor', route.cursor);
      else if (route.offset > 0) params.set('offset', String(route.offset));
      const text = params.toString();
      return text ? `#/events?${text}` : '#/events';
    }
    case 'event':
      return `#/events/${id(route.id)}`;
    case 'event-types':
      return '#/event-types';
    case 'event-type':
      return `#/event-types/${id(route.type)}`;
    case 'not-found':
      return `#${route.path}`;
  }
}

export function navigate(route: Route): void {
  window.location.hash = href(route);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
