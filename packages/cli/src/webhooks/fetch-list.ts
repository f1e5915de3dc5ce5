// Lists with --limit/--offset, or every page with --all (merged into one `list`).
import { RequestUrl } from '../http/endpoint.js';
import { nextPageUrl, pageItems } from '../api/pagination.js';
import type { ActiveInstance } from '../config/instance.js';
import { callApi } from '../http/client.js';

export interface ListQuery {
  readonly endpoint: string;
  readonly query: readonly (readonly [string, string])[];
  readonly all: boolean;
}

export async function fetchList(instance: ActiveInstance, request: ListQuery): Promise<unknown> {
  const first = await callApi(instance, { method: 'GET', endpoint: request.endpoint, query: request.query });
  if (!request.all) return first.data;
  const items = [...pageItems(first.data)];
  // Only path and query matter for finding the next page; callApi resolves them against the instance.
  const query = new URLSearchParams(request.query.map(([key, value]): [string, string] => [key, value]));
  let current = new RequestUrl('http://instance.invalid', request.endpoint, query.size > 0 ? `?${query.toString()}` : '');
  let data = first.data;
  for (let page = 0; page < 10_000; page++) {
    const next = nextPageUrl(current, data, undefined);
    if (!next) break;
    const result = await callApi(instance, { method: 'GET', endpoint: next.pathname, query: [...new URLSearchParams(next.search).entries()] });
    items.push(...pageItems(result.data));
    current = next;
    data = result.data;
  }
  return { list: items, count: items.length, pagination: { total: items.length, limit: items.length, offset: 0 } };
}
