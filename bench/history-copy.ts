// Settled history at volume, in exactly Herald's shapes: a sample of events that Herald itself
// published and settled (with their delivery rows and attempts) is copied, with fresh ids and
// older timestamps, until the events collection holds the wanted number. Writing documents by hand
// (bench/retention-seed.ts) is faster but only as faithful as whoever wrote them; copies carry
// every field the engine and the API wrote, including ones added after this file.
import { randomUUID } from 'node:crypto';
import type { Db, Document, Filter } from 'mongodb';

const PREFIX = 'herald_';
/** Events per insertMany (their rows and attempts go in one insertMany each beside them). */
const BATCH = 1_000;
/** Ids are matched by their text: Herald's ids are UUIDs, attempts' ids embed their row's. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export interface HistoryCopyOptions {
  /** Which events are the sample; they must be settled (no row left in the delivery queue). */
  sample: Filter<Document>;
  /** Events the collection should hold when done (sample and copies; other events count too). */
  targetEvents: number;
  /**
   * How far back the copies go: copy k of n is moved back k/n of this. Keep it inside the
   * retention window of the Herald that reads the store, or its hourly pass removes them.
   */
  spreadMs: number;
  progress?: (events: number, target: number) => void;
}

export interface HistoryCopyResult {
  sampleEvents: number;
  copiedEvents: number;
  copiedDeliveries: number;
  copiedAttempts: number;
  seconds: number;
}

interface Sample {
  events: Document[];
  rowsByEvent: Map<string, Document[]>;
  attemptsByEvent: Map<string, Document[]>;
}

async function readSample(db: Db, filter: Filter<Document>): Promise<Sample> {
  const events = await db.collection(`${PREFIX}events`).find(filter).toArray();
  if (events.length === 0) throw new Error(`no sample events match ${JSON.stringify(filter)}`);
  const ids = events.map((event) => String(event._id));
  const group = (documents: Document[]) => {
    const byEvent = new Map<string, Document[]>();
    for (const document of documents) byEvent.set(String(document.eventId), [...(byEvent.get(String(document.eventId)) ?? []), document]);
    return byEvent;
  };
  const inChunks = async (collection: string): Promise<Document[]> => {
    const found: Document[] = [];
    for (let start = 0; start < ids.length; start += 500) {
      found.push(...(await db.collection(collection).find({ eventId: { $in: ids.slice(start, start + 500) } }).toArray()));
    }
    return found;
  };
  const pending = await inChunks(`${PREFIX}delivery_queue`);
  if (pending.length > 0) throw new Error(`the sample is not settled: ${pending.length} rows are still in the delivery queue`);
  return { events, rowsByEvent: group(await inChunks(`${PREFIX}deliveries`)), attemptsByEvent: group(await inChunks(`${PREFIX}delivery_attempts`)) };
}

/**
 * A copy of `value` with every id of `ids` replaced by its new id wherever a string holds it (an
 * attempt's id embeds its row's) and every date moved by `shiftMs`. Idempotency keys get the
 * copy's suffix: the org's keys are unique per event.
 */
function rewrite(value: unknown, ids: Map<string, string>, shiftMs: number, suffix: string, key?: string): unknown {
  if (value instanceof Date) return new Date(value.getTime() + shiftMs);
  if (typeof value === 'string') {
    if (key === 'idempotencyKey') return `${value}${suffix}`;
    return value.replace(UUID, (id) => ids.get(id) ?? id);
  }
  if (Array.isArray(value)) return value.map((item) => rewrite(item, ids, shiftMs, suffix));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, rewrite(item, ids, shiftMs, suffix, name)]));
  }
  return value; // numbers, booleans, null, binary (sealed values stay sealed under the same key)
}

/**
 * Copies the sample until the events collection holds `targetEvents`. Per copy, the documents' own
 * ids change (the event's, its rows', its attempts'), and so does every link to them; org and
 * subscriber ids stay, so the copies are the same org's and subscribers' history. Sensitive values
 * are copied sealed as they are: a copy is history to list and page, not to redeliver.
 */
export async function copyHistory(db: Db, options: HistoryCopyOptions): Promise<HistoryCopyResult> {
  const started = performance.now();
  const sample = await readSample(db, options.sample);
  const events = db.collection(`${PREFIX}events`);
  let stored = await events.countDocuments({});
  const copies = Math.max(0, Math.ceil((options.targetEvents - stored) / sample.events.length));
  const result: HistoryCopyResult = { sampleEvents: sample.events.length, copiedEvents: 0, copiedDeliveries: 0, copiedAttempts: 0, seconds: 0 };
  let batch = { events: [] as Document[], rows: [] as Document[], attempts: [] as Document[] };
  const flush = async () => {
    if (batch.events.length === 0) return;
    const writing = batch;
    batch = { events: [], rows: [], attempts: [] };
    await Promise.all([
      events.insertMany(writing.events, { ordered: false }),
      writing.rows.length > 0 ? db.collection(`${PREFIX}deliveries`).insertMany(writing.rows, { ordered: false }) : undefined,
      writing.attempts.length > 0 ? db.collection(`${PREFIX}delivery_attempts`).insertMany(writing.attempts, { ordered: false }) : undefined,
    ]);
    result.copiedEvents += writing.events.length;
    result.copiedDeliveries += writing.rows.length;
    result.copiedAttempts += writing.attempts.length;
  };
  let reported = 0;
  for (let copy = 1; copy <= copies && stored < options.targetEvents; copy++) {
    const shiftMs = -Math.round((copy / copies) * options.spreadMs);
    for (const event of sample.events) {
      if (stored >= options.targetEvents) break;
      const eventId = String(event._id);
      const rows = sample.rowsByEvent.get(eventId) ?? [];
      const attempts = sample.attemptsByEvent.get(eventId) ?? [];
      const own = [eventId, ...rows.map((row) => String(row._id)), ...attempts.map((attempt) => String(attempt._id))];
      const ids = new Map(own.flatMap((id) => id.match(UUID) ?? []).map((id) => [id, randomUUID()]));
      batch.events.push(rewrite(event, ids, shiftMs, `-copy-${copy}`) as Document);
      for (const row of rows) batch.rows.push(rewrite(row, ids, shiftMs, '') as Document);
      for (const attempt of attempts) batch.attempts.push(rewrite(attempt, ids, shiftMs, '') as Document);
      stored += 1;
      if (batch.events.length >= BATCH) await flush();
      if (options.progress && stored - reported >= options.targetEvents / 10) {
        reported = stored;
        options.progress(stored, options.targetEvents);
      }
    }
  }
  await flush();
  result.seconds = Math.round((performance.now() - started) / 100) / 10;
  return result;
}
