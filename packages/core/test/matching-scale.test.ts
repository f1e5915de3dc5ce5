// 10,000 subscribers in one org; a publish that matches 10 of them touches only those.
//
// The proof is made on the wire: every query the publish sends to the subscribers and bucket
// collections is captured (driver command monitoring); each must be an `_id` equality, which
// MongoDB serves from the `_id` index (explain: IDHACK/EXPRESS) and FerretDB v1 pushes down to
// its backend (explain: filterPushdown: true, so non-matching documents are never decoded); and the
// documents the server returns are counted: the 4 candidate buckets plus the 10 matching
// subscribers — not 10,000. (FerretDB v1's SQLite still scans its table for an `_id` equality —
// its plan says SCAN and the cost grows with the table — so on FerretDB the claim is "14 documents
// decoded instead of 10,000", not "constant time"; see src/events/matching.ts.)
// The plans are a second test: it needs the `explain` command, which not every MongoDB-wire store
// has (mongo-java-server, the memory-mongo store, lacks it), and is skipped there, saying so.
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent, type Document } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import { matchBucketId, matchKeysFor } from '../src/events/matching.js';
import { collectionsFor } from '../src/storage/collections.js';
import type { MatchBucketDocument, SubscriberDocument } from '../src/storage/documents.js';
import { storeHasCommand, testMongoUri, uniqueDbName } from '../../../test/support/mongo.js';
import { recordingEngine } from './helpers.js';

const ORG = 'org-scale';
const TOTAL = 10_000;
const MATCHING_FILTERS = [
  ['invoice.paid'], ['invoice.paid', 'x.y'], ['invoice.*'], ['invoice.*'], ['*.paid'],
  ['*.paid', 'invoice.voided'], ['*'], [], ['invoice.paid'], ['invoice.*', '*.paid'],
];

let client: MongoClient;
let dbName: string;
let herald: Herald;
const started: CommandStartedEvent[] = [];
const succeeded: CommandSucceededEvent[] = [];
/** The publish's reads of subscribers and buckets, for the plan test. */
let reads: CommandStartedEvent[] = [];

function subscriber(index: number, events: string[], enabled = true): SubscriberDocument {
  const now = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, index));
  return {
    _id: randomUUID(),
    orgId: ORG,
    handle: `sub-${index}`,
    displayName: `Subscriber ${index}`,
    targetUrl: `https://example.com/hooks/${index}`,
    events,
    matchKeys: matchKeysFor(events),
    enabled,
    timeoutMs: 5000,
    createdBy: 'bulk',
    updatedBy: 'bulk',
    createdAt: now,
    updatedAt: now,
    revision: 0,
  };
}

beforeAll(async () => {
  client = new MongoClient(testMongoUri(), { monitorCommands: true });
  await client.connect();
  dbName = uniqueDbName('core_scale');
  const engine = recordingEngine();
  herald = await createHerald({ mongo: { client, dbName }, engineFactory: () => engine });

  // Bulk set-up with raw documents: 9,990 non-matching (other families and actions, some
  // disabled ones that *would* match), then the 10 that match `invoice.paid`.
  const documents: SubscriberDocument[] = [];
  for (let index = 0; index < TOTAL - MATCHING_FILTERS.length; index++) {
    const disabledButMatching = index % 1000 === 0;
    documents.push(
      disabledButMatching ? subscriber(index, ['invoice.*'], false) : subscriber(index, [`family${index % 50}.action${index % 7}`]),
    );
  }
  MATCHING_FILTERS.forEach((events, offset) => documents.push(subscriber(TOTAL - MATCHING_FILTERS.length + offset, events)));
  const buckets = new Map<string, MatchBucketDocument>();
  for (const document of documents.filter((candidate) => candidate.enabled)) {
    for (const matchKey of document.matchKeys) {
      const _id = matchBucketId(ORG, matchKey);
      const bucket = buckets.get(_id) ?? { _id, orgId: ORG, matchKey, subscriberIds: [] };
      bucket.subscriberIds.push(document._id);
      buckets.set(_id, bucket);
    }
  }
  const collections = collectionsFor(client.db(dbName), 'herald_');
  await collections.subscribers.insertMany(documents, { ordered: false });
  await collections.matchBuckets.insertMany([...buckets.values()], { ordered: false });
  client.on('commandStarted', (event) => started.push(event));
  client.on('commandSucceeded', (event) => succeeded.push(event));
}, 120_000);

afterAll(async () => {
  await herald.close();
  await client.db(dbName).dropDatabase();
  await client.close();
});

test('a publish matching 10 of 10,000 subscribers reads only those 10 (and ≤ 4 buckets), by _id', async () => {
  const collections = collectionsFor(client.db(dbName), 'herald_');
  expect(await collections.subscribers.countDocuments({ orgId: ORG })).toBe(TOTAL);
  started.length = 0;
  succeeded.length = 0;

  const startedAt = performance.now();
  const { event } = await herald.events.publish({ orgId: ORG }, { eventType: 'invoice.paid', aggregateId: 'inv-1', data: { n: 1 } });
  const publishMs = performance.now() - startedAt;

  expect(event.deliveries).toHaveLength(MATCHING_FILTERS.length);
  expect(event.deliveries.map((row) => row.subscriberId).sort()).toEqual(
    MATCHING_FILTERS.map((_, offset) => `sub-${TOTAL - MATCHING_FILTERS.length + offset}`).sort(),
  );

  // Every read the publish made of subscribers or buckets.
  const readCollections = new Set(['herald_subscribers', 'herald_match_buckets']);
  reads = started.filter((command) => command.commandName === 'find' && readCollections.has(command.command.find as string));
  expect(reads.length).toBeGreaterThan(0);
  let documentsReturned = 0;
  for (const read of reads) {
    const filter = read.command.filter as Document;
    // Shape: an `_id` string equality and nothing else.
    expect(Object.keys(filter)).toEqual(['_id']);
    expect(typeof filter._id).toBe('string');
    const reply = succeeded.find((done) => done.requestId === read.requestId)?.reply as { cursor: { firstBatch: unknown[] } };
    documentsReturned += reply.cursor.firstBatch.length;
  }
  const bucketReads = reads.filter((read) => read.command.find === 'herald_match_buckets');
  const subscriberReads = reads.filter((read) => read.command.find === 'herald_subscribers');
  expect(bucketReads).toHaveLength(4);
  expect(subscriberReads).toHaveLength(MATCHING_FILTERS.length);
  expect(documentsReturned).toBe(4 + MATCHING_FILTERS.length);

  console.log(`publish to 10 of ${TOTAL} subscribers: ${publishMs.toFixed(1)} ms, ${reads.length} _id reads, ${documentsReturned} documents`);
});

test('the store serves each of those reads from its _id index (explain)', async (context) => {
  const db = client.db(dbName);
  context.skip(
    !(await storeHasCommand(db, { explain: { find: 'herald_subscribers', filter: { _id: '' } }, verbosity: 'queryPlanner' })),
    'the store has no explain command (mongo-java-server lacks it), so its query plans cannot be asked',
  );
  expect(reads.length).toBeGreaterThan(0); // captured by the test above
  for (const read of reads) {
    const plan = await db.command({ explain: { find: read.command.find, filter: read.command.filter as Document }, verbosity: 'queryPlanner' });
    if ('filterPushdown' in plan) {
      expect(plan.filterPushdown).toBe(true); // FerretDB v1: the filter ran in storage on the _id index
    } else {
      expect(JSON.stringify(plan.queryPlanner?.winningPlan)).toMatch(/IDHACK|IXSCAN|EXPRESS/); // MongoDB
    }
  }

  // For contrast, the same match as one multikey query (timed only: FerretDB's PostgreSQL handler
  // pushes it down too, its SQLite handler did not).
  const collections = collectionsFor(db, 'herald_');
  const multikeyStartedAt = performance.now();
  const naive = await collections.subscribers
    .find({ orgId: ORG, enabled: true, matchKeys: { $in: ['invoice.paid', 'invoice.*', '*.paid', '*'] } })
    .toArray();
  const multikeyMs = performance.now() - multikeyStartedAt;
  expect(naive).toHaveLength(MATCHING_FILTERS.length); // same answer, so the comparison is fair
  console.log(`for contrast, the multikey query alone: ${multikeyMs.toFixed(1)} ms`);
});
