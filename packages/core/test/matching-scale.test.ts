// 10,000 subscribers in one org; a publish that matches 10 of them reads only those.
//
// The proof is made on the wire: every query the publish sends to the subscribers collection is
// captured (driver command monitoring); it is the one matching query (org, enabled, candidate match
// keys: storage/match-index.ts), and the server returns the 10 matching documents — not
// 10,000. Its plan is a second test: on MongoDB an index scan of `org_enabled_match_keys`, on
// FerretDB v1 a filter pushed down to PostgreSQL. It needs the `explain` command, which not every
// MongoDB-wire store has (mongo-java-server, the memory-mongo store, lacks it), and is skipped
// there, saying so.
import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent, type Document } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import { matchKeysFor } from '../src/rules/matching.js';
import { MATCH_INDEX } from '../src/storage/match-index.js';
import { collectionsFor } from '../src/storage/collections.js';
import type { SubscriberDocument } from '../src/storage/documents.js';
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
/** The publish's reads of subscribers, for the plan test. */
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
  const collections = collectionsFor(client.db(dbName), 'herald_');
  await collections.subscribers.insertMany(documents, { ordered: false });
  client.on('commandStarted', (event) => started.push(event));
  client.on('commandSucceeded', (event) => succeeded.push(event));
}, 120_000);

afterAll(async () => {
  await herald.close();
  await client.db(dbName).dropDatabase();
  await client.close();
});

test('a publish matching 10 of 10,000 subscribers reads only those 10, in one query', async () => {
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

  reads = started.filter((command) => command.commandName === 'find' && command.command.find === 'herald_subscribers');
  expect(reads).toHaveLength(1);
  const filter = reads[0]!.command.filter as Document;
  expect(filter).toEqual({ orgId: ORG, enabled: true, matchKeys: { $in: ['invoice.paid', 'invoice.*', '*.paid', '*'] } });
  const reply = succeeded.find((done) => done.requestId === reads[0]!.requestId)?.reply as { cursor: { firstBatch: unknown[] } };
  expect(reply.cursor.firstBatch).toHaveLength(MATCHING_FILTERS.length);

  console.log(`publish to 10 of ${TOTAL} subscribers: ${publishMs.toFixed(1)} ms, ${reads.length} subscriber query, ${reply.cursor.firstBatch.length} documents`);
});

test('the store serves the matching query from an index (MongoDB) or pushes it down (FerretDB v1)', async (context) => {
  const db = client.db(dbName);
  context.skip(
    !(await storeHasCommand(db, { explain: { find: 'herald_subscribers', filter: { _id: '' } }, verbosity: 'queryPlanner' })),
    'the store has no explain command (mongo-java-server lacks it), so its query plans cannot be asked',
  );
  expect(reads).toHaveLength(1); // captured by the test above
  const plan = await db.command({ explain: { find: 'herald_subscribers', filter: reads[0]!.command.filter as Document }, verbosity: 'queryPlanner' });
  if ('filterPushdown' in plan) {
    expect(plan.filterPushdown).toBe(true); // FerretDB v1: the filter ran in PostgreSQL
  } else {
    const winning = JSON.stringify(plan.queryPlanner?.winningPlan);
    expect(winning).toMatch(/IXSCAN/);
    expect(winning).toContain(MATCH_INDEX.name);
  }
});
