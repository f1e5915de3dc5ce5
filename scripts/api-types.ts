// `npm run api-types`: rewrites the console's and the operator's generated API types from the
// OpenAPI documents the host serves (scripts/api-types/generate.ts). Node runs it with
// --experimental-transform-types: the server's sources use TypeScript syntax (parameter
// properties) that type stripping alone cannot run.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatedApiTypes } from './api-types/generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [path, text] of await generatedApiTypes()) {
  writeFileSync(`${root}${path}`, text);
  console.log(`wrote ${path}`);
}
