// The bootstrap admin token of a fresh instance: created once cluster-wide (a marker document with a
// fixed _id decides between racing replicas), written to a 0600 file and handed to the caller to print.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from 'mongodb';
import { ALL_SCOPES } from './scopes.js';
import type { TokenStore } from './token-store.js';

export const META_COLLECTION = 'herald_server_meta';
export const BOOTSTRAP_TOKEN_FILE = 'bootstrap-token';

export interface BootstrapResult {
  token: string;
  tokenId: string;
  file: string;
}

export async function ensureBootstrapToken(db: Db, tokens: TokenStore, dataDir: string): Promise<BootstrapResult | undefined> {
  if ((await tokens.count()) > 0) return undefined;
  try {
    await db.collection<{ _id: string; at: Date }>(META_COLLECTION).insertOne({ _id: 'bootstrap-token', at: new Date() });
  } catch {
    return undefined; // another replica got there first (duplicate _id)
  }
  const { token, info } = await tokens.create({ name: 'bootstrap-admin', scopes: [...ALL_SCOPES], bootstrap: true });
  const directory = resolve(dataDir);
  mkdirSync(directory, { recursive: true });
  const file = join(directory, BOOTSTRAP_TOKEN_FILE);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // the mode option does not apply when the file already existed
  return { token, tokenId: info._id, file };
}
