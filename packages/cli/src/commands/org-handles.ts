// Organization handles from a GET /api/v1/orgs answer (a `list` of orgs, or a bare array). Pure.
import { listItems } from '../ui/cells.js';

export function orgHandles(data: unknown): string[] {
  const handles: string[] = [];
  for (const item of listItems(data)) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    const handle = [record.id, record.handle, record.name].find((value) => typeof value === 'string');
    if (typeof handle === 'string') handles.push(handle);
  }
  return handles;
}
