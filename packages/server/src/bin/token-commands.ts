// `herald-server token create|list|revoke`: admin commands that talk to the database directly (they
// work before any token exists and need no running server).
import { MongoClient } from 'mongodb';
import { ALL_SCOPES, isKnownScope } from '../auth/scopes.js';
import { TokenStore, type ApiTokenInfo } from '../auth/token-store.js';
import type { HostConfig } from '../config/schema.js';
import { parseDuration } from '../config/duration.js';

export class UsageError extends Error {}

async function withTokenStore<T>(config: HostConfig, action: (tokens: TokenStore) => Promise<T>): Promise<T> {
  const client = new MongoClient(config.mongodbUri, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const tokens = new TokenStore(client.db(config.mongodbDbName));
    await tokens.ensureIndexes();
    return await action(tokens);
  } finally {
    await client.close();
  }
}

/** `a,b` → scopes; `all` → every scope. Unknown names are a usage error listing the valid ones. */
export function parseScopes(text: string | undefined): string[] {
  if (!text) throw new UsageError(`--scopes is required (comma-separated; one or more of: ${ALL_SCOPES.join(', ')}, or all)`);
  const names = text.split(',').map((scope) => scope.trim()).filter(Boolean);
  if (names.length === 1 && names[0] === 'all') return [...ALL_SCOPES];
  const unknown = names.filter((scope) => !isKnownScope(scope));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`unknown scope(s): ${unknown.join(', ') || '(none given)'}; valid: ${ALL_SCOPES.join(', ')}, or all`);
  }
  return names;
}

export async function createTokenCommand(
  config: HostConfig,
  flags: { name?: string; scopes?: string; expiresIn?: string },
  out: (line: string) => void,
): Promise<void> {
  if (!flags.name) throw new UsageError('--name is required');
  const scopes = parseScopes(flags.scopes);
  let expiresAt: Date | null = null;
  if (flags.expiresIn) {
    const ms = parseDuration(flags.expiresIn);
    if (!ms) throw new UsageError(`--expires-in: expected a duration like 30d, 12h or 90m, got "${flags.expiresIn}"`);
    expiresAt = new Date(Date.now() + ms);
  }
  const name = flags.name;
  const { token, info } = await withTokenStore(config, (tokens) => tokens.create({ name, scopes, expiresAt }));
  out(token);
  process.stderr.write(
    `created token ${info._id} "${info.name}" (scopes: ${info.scopes.join(' ')}${expiresAt ? `; expires ${expiresAt.toISOString()}` : ''}).\n` +
      'The token is shown only this once; store it now.\n',
  );
}

function describe(info: ApiTokenInfo, now: number): string {
  const state = info.revokedAt ? 'revoked' : info.expiresAt && info.expiresAt.getTime() <= now ? 'expired' : 'active';
  return [
    info._id,
    state,
    info.name,
    info.scopes.join(' '),
    `created ${info.createdAt.toISOString()}`,
    `expires ${info.expiresAt?.toISOString() ?? 'never'}`,
    `last used ${info.lastUsedAt?.toISOString() ?? 'never'}`,
  ].join('\t');
}

export async function listTokensCommand(config: HostConfig, flags: { json?: boolean }, out: (line: string) => void): Promise<void> {
  const list = await withTokenStore(config, (tokens) => tokens.list());
  if (flags.json) {
    out(JSON.stringify(list.map(({ _id, ...rest }) => ({ id: _id, ...rest }))));
    return;
  }
  const now = Date.now();
  for (const info of list) out(describe(info, now));
}

export async function revokeTokenCommand(config: HostConfig, id: string | undefined, out: (line: string) => void): Promise<void> {
  if (!id) throw new UsageError('token revoke needs the token id (see token list)');
  const revoked = await withTokenStore(config, (tokens) => tokens.revoke(id));
  if (!revoked) throw new UsageError(`no active token with id ${id}`);
  out(`revoked ${id}`);
}
