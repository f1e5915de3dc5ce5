// The console's and the operator's API types are generated from the OpenAPI documents the host
// serves and checked in; this keeps them from drifting when a route's schema changes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { API_TYPES_COMMAND, generatedApiTypes } from '../scripts/api-types/generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function contentOf(path: string): string | undefined {
  try {
    return readFileSync(`${root}${path}`, 'utf8');
  } catch {
    return undefined;
  }
}

it('the checked-in API types are what the served OpenAPI documents generate', async () => {
  const files = await generatedApiTypes();
  expect(files.size).toBeGreaterThan(0);
  const stale = [...files].filter(([path, text]) => contentOf(path) !== text).map(([path]) => path);
  expect(stale, `generated API types differ from the served OpenAPI documents: run \`${API_TYPES_COMMAND}\` and commit the result`).toEqual([]);
});
