// Projects in the server's own MongoDB collection. Handles are unique per org (unique index), so a
// concurrent duplicate create is decided by MongoDB, not by a read-then-write race.
import { randomUUID } from 'node:crypto';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { ConflictError, NotFoundError } from '@herald/core';
import type { Project, ProjectCreateRequest, ProjectUpdateRequest } from './schemas.js';

export const PROJECTS_COLLECTION = 'herald_server_projects';
const DUPLICATE_KEY = 11000;

interface ProjectDocument {
  _id: string;
  orgId: string;
  handle: string;
  displayName: string;
  description?: string;
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProjectScope {
  orgId: string;
  actor: string;
}

export interface ProjectPage {
  list: Project[];
  count: number;
  pagination: { total: number; limit: number; offset: number };
}

/** Maps principal ids that no longer exist to `deleted_user` (same rule as core's subscribers). */
export type PrincipalResolver = (ids: string[]) => Promise<Set<string>>;

export class ProjectStore {
  private readonly collection: Collection<ProjectDocument>;

  constructor(
    db: Db,
    private readonly existingPrincipals: PrincipalResolver,
  ) {
    this.collection = db.collection<ProjectDocument>(PROJECTS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ orgId: 1, handle: 1 }, { unique: true, name: 'org_handle_unique' });
    await this.collection.createIndex({ orgId: 1, createdAt: 1, handle: 1 }, { name: 'org_created' });
  }

  async create(scope: ProjectScope, input: ProjectCreateRequest, now = new Date()): Promise<Project> {
    const document: ProjectDocument = {
      _id: randomUUID(),
      orgId: scope.orgId,
      handle: input.id ?? randomUUID(),
      displayName: input.displayName,
      ...(input.description ? { description: input.description } : {}),
      createdBy: scope.actor,
      updatedBy: scope.actor,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.collection.insertOne(document);
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
        throw new ConflictError(`A project with id "${document.handle}" already exists`);
      }
      throw error;
    }
    return (await this.present([document]))[0]!;
  }

  async get(orgId: string, handle: string): Promise<Project> {
    const document = await this.collection.findOne({ orgId, handle });
    if (!document) throw new NotFoundError(`Project "${handle}" not found`);
    return (await this.present([document]))[0]!;
  }

  async list(orgId: string, page: { limit: number; offset: number }): Promise<ProjectPage> {
    const [documents, total] = await Promise.all([
      this.collection.find({ orgId }).sort({ createdAt: 1, handle: 1 }).skip(page.offset).limit(page.limit).toArray(),
      this.collection.countDocuments({ orgId }),
    ]);
    const list = await this.present(documents);
    return { list, count: list.length, pagination: { total, limit: page.limit, offset: page.offset } };
  }

  async update(scope: ProjectScope, handle: string, patch: ProjectUpdateRequest, now = new Date()): Promise<Project> {
    const set: Partial<ProjectDocument> = { updatedBy: scope.actor, updatedAt: now };
    const unset: Record<string, ''> = {};
    if (patch.displayName !== undefined) set.displayName = patch.displayName;
    if (patch.description !== undefined) {
      if (patch.description === '') unset.description = '';
      else set.description = patch.description;
    }
    const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
    const document = await this.collection.findOneAndUpdate({ orgId: scope.orgId, handle }, update, { returnDocument: 'after' });
    if (!document) throw new NotFoundError(`Project "${handle}" not found`);
    return (await this.present([document]))[0]!;
  }

  async delete(orgId: string, handle: string): Promise<void> {
    const result = await this.collection.deleteOne({ orgId, handle });
    if (result.deletedCount !== 1) throw new NotFoundError(`Project "${handle}" not found`);
  }

  private async present(documents: ProjectDocument[]): Promise<Project[]> {
    const actors = [...new Set(documents.flatMap((document) => [document.createdBy, document.updatedBy]))];
    const existing = await this.existingPrincipals(actors);
    const identity = (id: string) => (existing.has(id) ? id : 'deleted_user');
    return documents.map((document) => ({
      id: document.handle,
      orgId: document.orgId,
      displayName: document.displayName,
      ...(document.description !== undefined ? { description: document.description } : {}),
      createdBy: identity(document.createdBy),
      updatedBy: identity(document.updatedBy),
      createdAt: document.createdAt.toISOString(),
      updatedAt: document.updatedAt.toISOString(),
    }));
  }
}
