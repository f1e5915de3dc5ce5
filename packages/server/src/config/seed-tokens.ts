// Seeded API tokens (HERALD_SEED_TOKENS_FILE / `seedTokensFile`): a JSON file of
// `[{name, token, scopes}]` whose tokens the deployer generated (e.g. a Helm chart into a Kubernetes
// Secret), so a client such as the operator works right after install without a human minting a
// token. Only read and validated here (pure apart from reading the file); TokenStore.upsertSeeded
// stores them. Problems never quote a token value.
import { readFileSync } from 'node:fs';
import { isApiTokenShape } from '../auth/api-token.js';
import { isKnownScope } from '../auth/scopes.js';
import { HostConfigError } from './errors.js';

export interface SeedToken {
  name: string;
  token: string;
  scopes: string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const FIELDS = new Set(['name', 'token', 'scopes']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entryProblems(entry: unknown, at: string): string[] {
  if (!isObject(entry)) return [`${at}: must be an object {name, token, scopes}`];
  const problems = Object.keys(entry).filter((field) => !FIELDS.has(field)).map((field) => `${at}.${field}: unknown field`);
  if (typeof entry.name !== 'string' || !NAME.test(entry.name)) {
    problems.push(`${at}.name: must match ${NAME.source}`);
  }
  if (typeof entry.token !== 'string' || !isApiTokenShape(entry.token)) {
    problems.push(`${at}.token: must be "hrd_" followed by 43 base64url characters (32 random bytes)`);
  }
  if (!Array.isArray(entry.scopes)) {
    problems.push(`${at}.scopes: must be an array of scopes`);
  } else {
    entry.scopes.forEach((scope: unknown, index) => {
      if (typeof scope !== 'string' || !isKnownScope(scope)) problems.push(`${at}.scopes[${index}]: unknown scope ${JSON.stringify(scope)}`);
    });
  }
  return problems;
}

/** Validates the file's text; `source` names it in problems (the variable or field and the path). */
export function parseSeedTokens(text: string, source: string): SeedToken[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HostConfigError([`${source}: not valid JSON`]);
  }
  if (!Array.isArray(parsed)) throw new HostConfigError([`${source}: must be a JSON array of {name, token, scopes}`]);
  const problems = parsed.flatMap((entry: unknown, index) => entryProblems(entry, `${source}[${index}]`));
  if (problems.length > 0) throw new HostConfigError(problems);
  const seeds = parsed as SeedToken[];
  const names = new Set<string>();
  const tokens = new Set<string>();
  seeds.forEach((seed, index) => {
    if (names.has(seed.name)) problems.push(`${source}[${index}].name: "${seed.name}" appears twice`);
    if (tokens.has(seed.token)) problems.push(`${source}[${index}].token: the same token is given twice`);
    names.add(seed.name);
    tokens.add(seed.token);
  });
  if (problems.length > 0) throw new HostConfigError(problems);
  return seeds.map(({ name, token, scopes }) => ({ name, token, scopes: [...new Set(scopes)] }));
}

export function readSeedTokensFile(path: string, source = `seedTokensFile ${path}`): SeedToken[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HostConfigError([`${source}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
  return parseSeedTokens(text, source);
}
