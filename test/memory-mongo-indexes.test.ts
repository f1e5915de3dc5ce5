// memory-mongo (scripts/tools/memory-mongo.sh) reads through its secondary indexes as MongoDB
// does (herald/OrderedIndex.java): an index may only change how fast an answer comes, never the
// answer. The same documents and the same writes go to a collection with Herald's kinds of
// indexes (compound, descending, multikey, partial prefix) and to one without any; every query
// shape Herald sends (list pages and their cursors, the due read, counts — from the index alone or
// not —, aggregations, `$in`, nulls, ranges, a claim's `$or` by `_id`) must answer the same on both,
// as the writes move documents between index keys or leave them where they are.
import { type Collection, type Document, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryMongo } from '../bench/memory-mongo.js';

const STATUSES = ['PENDING', 'IN_FLIGHT', 'FAILED', 'DELIVERED'];
const T0 = Date.UTC(2026, 0, 1);

let store: Awaited<ReturnType<typeof startMemoryMongo>>;
let client: MongoClient;
interface Sample extends Document {
  _id: string;
}
let indexed: Collection<Sample>;
let plain: Collection<Sample>;

/** A fixed pseudo-random sequence, so a failure repeats. */
function sequence(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}
const pick = sequence(7);

function sample(i: number): Sample {
  const document: Sample = {
    _id: `d${String(i).padStart(6, '0')}`,
    orgId: `org${pick(3)}`,
    status: STATUSES[pick(4)],
    occurredAt: new Date(T0 + pick(50) * 1000),
    n: pick(20),
  };
  if (pick(5) > 0) document.nextAttemptAt = pick(6) > 0 ? new Date(T0 + pick(100) * 1000) : null;
  const tags = pick(3);
  if (tags === 0) document.tags = [`t${pick(3)}`, `t${pick(3)}`];
  else if (tags === 1) document.tags = `t${pick(3)}`;
  return document;
}

async function both(write: (collection: Collection<Sample>) => Promise<unknown>): Promise<void> {
  await write(indexed);
  await write(plain);
}

async function expectSame(query: (collection: Collection<Sample>) => Promise<unknown>): Promise<void> {
  expect(await query(indexed)).toEqual(await query(plain));
}

/** `query` with `{ $or: branches }` on the indexed collection and `{ $and: [{ $or: branches }] }` on the other. */
async function expectSameAsEveryBranch(query: (collection: Collection<Sample>, filter: Document) => Promise<unknown>, branches: Document[]): Promise<void> {
  expect(await query(indexed, { $or: branches })).toEqual(await query(plain, { $and: [{ $or: branches }] }));
}

const ids = (documents: Sample[]) => documents.map((document) => document._id).sort();

beforeAll(async () => {
  store = await startMemoryMongo();
  client = new MongoClient(store.uri);
  const db = client.db('indexes');
  indexed = db.collection<Sample>('indexed');
  plain = db.collection<Sample>('plain');
  await indexed.createIndex({ orgId: 1, occurredAt: -1, _id: -1 });
  await indexed.createIndex({ orgId: 1, status: 1, occurredAt: -1, _id: -1 });
  await indexed.createIndex({ status: 1, nextAttemptAt: 1 });
  await indexed.createIndex({ tags: 1, n: 1 });
  const documents = Array.from({ length: 3_000 }, (_, i) => sample(i));
  await both((collection) => collection.insertMany(documents.map((document) => ({ ...document }))));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await store?.stop();
});

describe('memory-mongo: reading through a secondary index answers as reading the collection does', () => {
  it('for every query shape, through 40 rounds of updates, deletes and inserts', async () => {
    for (let round = 0; round < 40; round += 1) {
      const orgId = `org${pick(3)}`;
      const status = STATUSES[pick(4)]!;
      const at = new Date(T0 + pick(100) * 1000);
      const limit = 1 + pick(30);
      const skip = pick(10);
      const tag = `t${pick(3)}`;
      const cutoff = new Date(T0 + pick(10) * 1000);
      const byPage = { occurredAt: -1, _id: -1 } as const;

      await expectSame((c) => c.find({ orgId }).sort(byPage).limit(limit).toArray());
      await expectSame((c) => c.find({ orgId }).sort({ occurredAt: 1, _id: 1 }).skip(skip).limit(limit).toArray());
      await expectSame((c) =>
        c.find({ orgId, $or: [{ occurredAt: { $lt: at } }, { occurredAt: at, _id: { $lt: 'd001500' } }] }).sort(byPage).limit(limit).toArray(),
      );
      await expectSame((c) => c.find({ orgId, status }).sort(byPage).limit(limit).toArray());
      await expectSame((c) => c.find({ orgId, status: { $in: [status, 'FAILED'] } }).sort(byPage).limit(limit).toArray());
      await expectSame((c) =>
        c.find({ status: 'PENDING', nextAttemptAt: { $lte: at } }).sort({ nextAttemptAt: 1 }).limit(limit).toArray().then((found) => found.map((d) => d.nextAttemptAt)),
      );
      await expectSame((c) => c.find({ status: 'PENDING', nextAttemptAt: { $lte: at } }).toArray().then(ids));
      await expectSame((c) => c.find({ status, nextAttemptAt: null }).toArray().then(ids));
      await expectSame((c) => c.find({ status, nextAttemptAt: { $ne: null } }).toArray().then(ids));
      await expectSame((c) => c.find({ status, nextAttemptAt: { $gt: at } }).toArray().then(ids));
      await expectSame((c) => c.find({ tags: tag }).sort({ n: 1 }).toArray().then(ids));
      await expectSame((c) => c.find({ occurredAt: { $lt: at } }).toArray().then(ids));
      await expectSame((c) => c.countDocuments({ orgId }));
      await expectSame((c) => c.countDocuments({ orgId, status }));
      await expectSame((c) => c.countDocuments({ orgId: 'org-none' }));
      await expectSame((c) => c.countDocuments({ orgId, n: { $gt: 10 } }));
      await expectSame((c) => c.aggregate([{ $match: { status } }, { $group: { _id: '$orgId', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray());

      // A claim's shape: a `$or` of each row's expected state, checked branch by branch where it
      // names the row's `_id` (herald/IdBranchMatcher.java); inside an `$and` every branch is checked.
      const branches = Array.from({ length: 1 + pick(40) }, () => ({ _id: `d${String(pick(3_400)).padStart(6, '0')}`, status: STATUSES[pick(4)], n: { $lte: pick(20) } }));
      await expectSameAsEveryBranch((c, filter) => c.find(filter).toArray().then(ids), branches);
      await expectSameAsEveryBranch((c, filter) => c.updateMany(filter, { $set: { status: 'IN_FLIGHT' }, $inc: { claims: 1 } }).then((r) => r.modifiedCount), branches);
      // Writes that leave every indexed field as it was.
      await both((c) => c.updateMany({ orgId, status: 'IN_FLIGHT' }, { $inc: { claims: 1 } }));

      const target = `d${String(pick(3_000)).padStart(6, '0')}`;
      const moved = { $set: { status: STATUSES[pick(4)], nextAttemptAt: new Date(T0 + pick(100) * 1000) } };
      await both((c) => c.updateOne({ _id: target }, moved));
      await both((c) => c.updateMany({ orgId, status: 'FAILED' }, { $set: { status: 'PENDING' } }));
      await both((c) => c.deleteMany({ status: 'DELIVERED', occurredAt: { $lt: cutoff } }));
      const added = Array.from({ length: 20 }, (_, i) => sample(3_000 + round * 20 + i));
      await both((c) => c.insertMany(added.map((document) => ({ ...document }))));
      await expectSame((c) => c.find({}).sort({ _id: 1 }).toArray());
    }
  }, 120_000);
});
