// Portal links and sessions in the server's own collections, so a link made on one replica opens on
// any other and survives restarts. Only hashes of the code and of the session token are stored.
// A code is spent by inserting a marker whose _id is the link's: of concurrent exchanges of one
// code, the unique _id lets exactly one through on every store (a conditional update is not atomic
// on FerretDB v1, whose updates rewrite whole documents).
import type { Collection, Db } from 'mongodb';
import {
  generatePortalCode,
  generatePortalId,
  generatePortalSessionToken,
  hashPortalSecret,
} from './portal-credentials.js';

export const PORTAL_LINKS_COLLECTION = 'herald_server_portal_links';
export const PORTAL_SESSIONS_COLLECTION = 'herald_server_portal_sessions';
/** One document per spent link, `_id` = the link's id. */
export const PORTAL_LINK_USES_COLLECTION = 'herald_server_portal_link_uses';
const DUPLICATE_KEY = 11000;
/** Spent and expired records are kept this long (for the record), then removed when links are made. */
const KEEP_AFTER_EXPIRY_MS = 24 * 3_600_000;

interface PortalLinkDocument {
  _id: string;
  codeHash: string;
  orgId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

interface PortalSessionDocument {
  _id: string;
  tokenHash: string;
  orgId: string;
  linkId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface PortalSession {
  id: string;
  orgId: string;
  expiresAt: Date;
}

/** Why a code did not open a session; the route turns each into its own answer. */
export type ExchangeRefusal = 'unknown' | 'used' | 'expired';

export type ExchangeResult = { ok: true; token: string; session: PortalSession } | { ok: false; reason: ExchangeRefusal };

export class PortalStore {
  private readonly links: Collection<PortalLinkDocument>;
  private readonly sessions: Collection<PortalSessionDocument>;
  private readonly uses: Collection<{ _id: string; usedAt: Date; expiresAt: Date }>;

  constructor(db: Db) {
    this.links = db.collection<PortalLinkDocument>(PORTAL_LINKS_COLLECTION);
    this.sessions = db.collection<PortalSessionDocument>(PORTAL_SESSIONS_COLLECTION);
    this.uses = db.collection(PORTAL_LINK_USES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.links.createIndex({ codeHash: 1 }, { unique: true, name: 'codeHash_unique' });
    await this.links.createIndex({ expiresAt: 1 }, { name: 'expiresAt' });
    await this.sessions.createIndex({ tokenHash: 1 }, { unique: true, name: 'tokenHash_unique' });
    await this.sessions.createIndex({ expiresAt: 1 }, { name: 'expiresAt' });
  }

  async createLink(input: { orgId: string; createdBy: string; ttlMs: number }, now = new Date()): Promise<{ code: string; expiresAt: Date }> {
    const code = generatePortalCode();
    const expiresAt = new Date(now.getTime() + input.ttlMs);
    await this.links.insertOne({
      _id: generatePortalId(),
      codeHash: hashPortalSecret(code),
      orgId: input.orgId,
      createdBy: input.createdBy,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
    await this.removeStale(now);
    return { code, expiresAt };
  }

  /** Spends the code (once) and opens a session of `sessionTtlMs` for the link's org. */
  async exchange(code: string, sessionTtlMs: number, now = new Date()): Promise<ExchangeResult> {
    const link = await this.links.findOne({ codeHash: hashPortalSecret(code) });
    if (!link) return { ok: false, reason: 'unknown' };
    if (link.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, reason: (await this.uses.findOne({ _id: link._id })) ? 'used' : 'expired' };
    }
    try {
      await this.uses.insertOne({ _id: link._id, usedAt: now, expiresAt: link.expiresAt });
    } catch (error) {
      if ((error as { code?: unknown }).code === DUPLICATE_KEY) return { ok: false, reason: 'used' };
      throw error;
    }
    // For the record only: the marker above is what spends the code.
    await this.links.updateOne({ _id: link._id }, { $set: { usedAt: now } });
    const token = generatePortalSessionToken();
    const id = generatePortalId();
    const expiresAt = new Date(now.getTime() + sessionTtlMs);
    await this.sessions.insertOne({ _id: id, tokenHash: hashPortalSecret(token), orgId: link.orgId, linkId: link._id, createdAt: now, expiresAt });
    return { ok: true, token, session: { id, orgId: link.orgId, expiresAt } };
  }

  /** The live session with this token, if any. */
  async findSession(token: string, now = new Date()): Promise<PortalSession | undefined> {
    const document = await this.sessions.findOne({ tokenHash: hashPortalSecret(token) });
    if (!document || document.expiresAt.getTime() <= now.getTime()) return undefined;
    return { id: document._id, orgId: document.orgId, expiresAt: document.expiresAt };
  }

  private async removeStale(now: Date): Promise<void> {
    const before = new Date(now.getTime() - KEEP_AFTER_EXPIRY_MS);
    await Promise.all([
      this.links.deleteMany({ expiresAt: { $lt: before } }),
      this.uses.deleteMany({ expiresAt: { $lt: before } }),
      this.sessions.deleteMany({ expiresAt: { $lt: before } }),
    ]);
  }
}
