// API tokens in the server's own MongoDB collection. Only SHA-256 hashes are stored; the plaintext
// token exists once, in the return value of create().
import type { Collection, Db } from 'mongodb';
import { generateApiToken, generateTokenId, hashApiToken, seededTokenId } from './api-token.js';

export const TOKENS_COLLECTION = 'herald_server_api_tokens';
/**
 * When each token was last used, apart from the token documents: a usage write never rewrites a
 * token, so it cannot undo a revocation made at the same moment on a store whose updates rewrite
 * the whole document (FerretDB v1), and revoking never waits on usage.
 */
export const TOKEN_USAGE_COLLECTION = 'herald_server_api_token_usage';
/** lastUsedAt is a hint, not an audit log: write it at most once a minute per token. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Verified tokens are remembered briefly so most requests skip a database read. A revocation made by
 * another process (the `token revoke` command) takes effect within this bound. */
const LOOKUP_CACHE_TTL_MS = 5_000;
const LOOKUP_CACHE_MAX = 1_000;

export interface ApiTokenDocument {
  _id: string;
  name: string;
  tokenHash: string;
  scopes: string[];
  principalId: string;
  createdAt: Date;
  expiresAt: Date | null;
  /** Written at creation only; later uses are kept in TOKEN_USAGE_COLLECTION (list() shows the newer). */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  bootstrap: boolean;
  /** Supplied by the deployer through the seed-tokens file (absent on older documents). */
  seeded?: boolean;
}

/** What listing shows: everything but the hash. */
export type ApiTokenInfo = Omit<ApiTokenDocument, 'tokenHash'>;

export interface NewApiToken {
  name: string;
  scopes: string[];
  expiresAt?: Date | null;
  bootstrap?: boolean;
}

export interface SeedTokenInput {
  name: string;
  token: string;
  scopes: string[];
}

/** What seeding did to one token (logged by name and id, never the value). */
export type SeedOutcome = 'created' | 'updated' | 'unchanged' | 'issued-elsewhere';

const DUPLICATE_KEY = 11000;

export class TokenStore {
  private readonly collection: Collection<ApiTokenDocument>;
  private readonly usage: Collection<{ _id: string; lastUsedAt: Date }>;
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly lookupCache = new Map<string, { document: ApiTokenDocument; cachedAt: number }>();

  constructor(db: Db) {
    this.collection = db.collection<ApiTokenDocument>(TOKENS_COLLECTION);
    this.usage = db.collection(TOKEN_USAGE_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ tokenHash: 1 }, { unique: true, name: 'tokenHash_unique' });
    await this.collection.createIndex({ principalId: 1 }, { name: 'principalId' });
  }

  async create(input: NewApiToken, now = new Date()): Promise<{ token: string; info: ApiTokenInfo }> {
    const token = generateApiToken();
    const id = generateTokenId();
    const document: ApiTokenDocument = {
      _id: id,
      name: input.name,
      tokenHash: hashApiToken(token),
      scopes: [...input.scopes],
      principalId: id,
      createdAt: now,
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
      bootstrap: input.bootstrap ?? false,
    };
    await this.collection.insertOne(document);
    return { token, info: withoutHash(document) };
  }

  /**
   * Upserts a deployer-supplied token by name: stored only as its hash, with exactly these scopes,
   * never expiring. Safe to run on every start of every replica. A new value for the name replaces
   * the hash (the old value stops working) and lifts a revocation; the same value that was revoked
   * stays revoked, so revoking a leaked seeded token is not undone by a restart.
   */
  async upsertSeeded(seed: SeedTokenInput, now = new Date()): Promise<SeedOutcome> {
    const id = seededTokenId(seed.name);
    const tokenHash = hashApiToken(seed.token);
    const scopes = [...seed.scopes];
    // A value `token create` issued (e.g. pasted into a chart's operator.token.value) already works
    // with its own scopes; a second document with the same hash would violate the unique index.
    if (await this.collection.findOne({ tokenHash, _id: { $ne: id } }, { projection: { _id: 1 } })) return 'issued-elsewhere';
    for (let attempt = 0; ; attempt++) {
      const existing = await this.collection.findOne({ _id: id });
      try {
        if (!existing) {
          await this.collection.insertOne({
            _id: id, name: seed.name, tokenHash, scopes, principalId: id, createdAt: now,
            expiresAt: null, lastUsedAt: null, revokedAt: null, bootstrap: false, seeded: true,
          });
          return 'created';
        }
        const sameScopes = existing.scopes.length === scopes.length && existing.scopes.every((scope, i) => scope === scopes[i]);
        if (existing.tokenHash === tokenHash && sameScopes) return 'unchanged';
        const replaced = existing.tokenHash !== tokenHash;
        await this.collection.updateOne(
          { _id: id },
          { $set: { tokenHash, scopes, seeded: true, ...(replaced ? { revokedAt: null, expiresAt: null } : {}) } },
        );
        this.lookupCache.clear();
        return 'updated';
      } catch (error) {
        // Another replica inserted the same id between our read and write: read again, once.
        if (attempt === 0 && (error as { code?: unknown }).code === DUPLICATE_KEY) continue;
        throw error;
      }
    }
  }

  /** The live (not revoked, not expired) token with this plaintext, if any. */
  async findActive(token: string, now = new Date()): Promise<ApiTokenInfo | undefined> {
    const tokenHash = hashApiToken(token);
    const cached = this.lookupCache.get(tokenHash);
    let document = cached && now.getTime() - cached.cachedAt < LOOKUP_CACHE_TTL_MS ? cached.document : undefined;
    if (!document) {
      document = (await this.collection.findOne({ tokenHash })) ?? undefined;
      if (document) this.remember(tokenHash, document, now.getTime());
    }
    if (!document || document.revokedAt) return undefined;
    if (document.expiresAt && document.expiresAt.getTime() <= now.getTime()) return undefined;
    this.touch(document._id, now);
    return withoutHash(document);
  }

  async list(): Promise<ApiTokenInfo[]> {
    const documents = (await this.collection.find({}, { projection: { tokenHash: 0 } }).sort({ createdAt: 1 }).toArray()) as ApiTokenInfo[];
    if (documents.length === 0) return documents;
    const usage = await this.usage.find({ _id: { $in: documents.map((document) => document._id) } }).toArray();
    const lastUsed = new Map(usage.map((entry) => [entry._id, entry.lastUsedAt]));
    return documents.map((document) => ({ ...document, lastUsedAt: lastUsed.get(document._id) ?? document.lastUsedAt }));
  }

  /** Marks the token revoked (kept for the record); false when no live token has that id. */
  async revoke(id: string, now = new Date()): Promise<boolean> {
    const result = await this.collection.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } });
    this.lookupCache.clear();
    return result.modifiedCount === 1;
  }

  /** Tokens Herald issued itself; seeded ones do not count, so seeding never suppresses the bootstrap token. */
  async count(): Promise<number> {
    return this.collection.countDocuments({ seeded: { $ne: true } });
  }

  /** For core's `principals.existing`: ids whose token has not been revoked (expiry does not erase an identity). */
  async existingPrincipals(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const documents = await this.collection
      .find({ principalId: { $in: ids }, revokedAt: null }, { projection: { principalId: 1 } })
      .toArray();
    return new Set(documents.map((document) => document.principalId));
  }

  private remember(tokenHash: string, document: ApiTokenDocument, now: number): void {
    if (this.lookupCache.size >= LOOKUP_CACHE_MAX) this.lookupCache.clear();
    this.lookupCache.set(tokenHash, { document, cachedAt: now });
  }

  private touch(id: string, now: Date): void {
    const last = this.lastUsedWrites.get(id) ?? 0;
    if (now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(id, now.getTime());
    // Fire and forget: a failed hint write must not fail the request it belongs to.
    this.usage.updateOne({ _id: id }, { $set: { lastUsedAt: now } }, { upsert: true }).catch(() => this.lastUsedWrites.delete(id));
  }
}

function withoutHash(document: ApiTokenDocument): ApiTokenInfo {
  const { tokenHash: _tokenHash, ...info } = document;
  return info;
}
