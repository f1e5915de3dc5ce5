// `npm run bench:filters` (also part of `npm run bench`): the CPU cost of payload filters at
// fan-out, against issue 23's target "fan-out with a filter on each of 100 subscribers costs
// ≤ 10 µs per subscriber per event". It runs the code a publisher runs per event
// (events/subscriber-filter.ts over rules/filter.ts) on 100 subscriber documents, each with its
// own filter of a realistic shape (2–4 conditions, `$or`/`$in`/`$not`, paths two levels deep),
// over events whose data has a dozen fields. No store is involved: filters add no command to a
// publish (packages/core/test/filters.test.ts counts them), so their whole cost is this CPU.
// Figures are merged into .data/bench/delivery.json under `filters`. Knobs: BENCH_FILTER_EVENTS.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { filterSubscribers } from '../packages/core/src/events/subscriber-filter.js';
import type { EventPayload } from '../packages/core/src/model/payload.js';
import type { SubscriberDocument } from '../packages/core/src/storage/documents.js';
import { round } from './stats.js';

const EVENTS = Number(process.env.BENCH_FILTER_EVENTS ?? 20_000);
const SUBSCRIBERS = 100;
const TARGET_US = 10;
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF'];
const TIERS = ['free', 'pro', 'vip'];

function filterFor(index: number): Record<string, unknown> {
  const currency = CURRENCIES[index % CURRENCIES.length]!;
  switch (index % 4) {
    case 0:
      return { 'data.amount': { $gte: (index % 10) * 100 }, 'data.currency': currency };
    case 1:
      return { $or: [{ 'data.customer.tier': { $in: ['vip', 'pro'] } }, { 'data.amount': { $gt: 900 } }], type: 'order.created' };
    case 2:
      return { $not: { aggregateId: { $startsWith: 'test_' } }, 'data.customer.country': { $nin: ['XX', 'YY'] }, 'data.flags.express': { $exists: true } };
    default:
      return { $and: [{ 'data.sku': { $endsWith: `-${index % 10}` } }, { occurredAt: { $gte: '2025-01-01T00:00:00Z' } }], 'data.channel': { $ne: 'api' } };
  }
}

function subscriber(index: number): SubscriberDocument {
  const now = new Date();
  return {
    _id: `sub-${index}`, orgId: 'bench', handle: `s${index}`, displayName: 's', targetUrl: 'https://example.com/', events: ['order.*'],
    matchKeys: ['order.*'], filter: JSON.stringify(filterFor(index)), enabled: true, timeoutMs: 5000,
    createdBy: 'bench', updatedBy: 'bench', createdAt: now, updatedAt: now, revision: 0,
  };
}

function payload(index: number): EventPayload {
  const publicData: Record<string, unknown> = {
    amount: (index * 37) % 1000,
    currency: CURRENCIES[index % CURRENCIES.length],
    sku: `SKU-${index % 1000}-${index % 10}`,
    channel: index % 3 === 0 ? 'api' : 'web',
    customer: { id: `cus_${index}`, tier: TIERS[index % 3], country: index % 7 === 0 ? 'XX' : 'DE', since: '2020-01-01' },
    flags: index % 2 === 0 ? { express: true, gift: false } : { gift: true },
    lines: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }],
    note: 'n'.repeat(40),
    coupon: null,
    tax: 19,
    shipping: 4.9,
    createdVia: 'checkout',
  };
  return {
    eventId: `e${index}`, eventType: 'order.created', orgId: 'bench', aggregateType: 'order', aggregateId: index % 5 === 0 ? `test_${index}` : `ord_${index}`,
    occurredAt: new Date(Date.UTC(2025, 0, 1 + (index % 300))), split: { publicData, sensitiveValues: {} }, order: Object.keys(publicData),
  };
}

const subscribers = Array.from({ length: SUBSCRIBERS }, (_, index) => subscriber(index));
const events = Array.from({ length: EVENTS }, (_, index) => payload(index));

// Cold: each filter is parsed and compiled on its first event (once per cached subscriber document).
let start = process.cpuUsage();
let matched = filterSubscribers(subscribers, events[0]!).length;
const cold = process.cpuUsage(start);
const coldUs = (cold.user + cold.system) / SUBSCRIBERS;
for (let index = 1; index < Math.min(2_000, EVENTS); index++) matched += filterSubscribers(subscribers, events[index]!).length; // warm the JIT

start = process.cpuUsage();
const wall = performance.now();
let receiving = 0;
for (const event of events) receiving += filterSubscribers(subscribers, event).length;
const cpu = process.cpuUsage(start);
const wallMs = performance.now() - wall;
const cpuUs = cpu.user + cpu.system;
const perSubscriberEventUs = cpuUs / (EVENTS * SUBSCRIBERS);

const figures = {
  subscribers: SUBSCRIBERS,
  events: EVENTS,
  matchRate: round(receiving / (EVENTS * SUBSCRIBERS), 3),
  cpuUsPerSubscriberPerEvent: round(perSubscriberEventUs, 4),
  cpuUsPerEvent: round(cpuUs / EVENTS, 2),
  wallMs: round(wallMs, 1),
  firstEventCompileUsPerSubscriber: round(coldUs, 2),
  targetUsPerSubscriberPerEvent: TARGET_US,
  met: perSubscriberEventUs <= TARGET_US,
};
console.log(`filters: ${SUBSCRIBERS} subscribers with a filter each, ${EVENTS} events (${figures.matchRate} of pairs pass; ${matched} warm-up matches)`);
console.log(`  CPU per subscriber per event: ${figures.cpuUsPerSubscriberPerEvent} µs (target ≤ ${TARGET_US} µs) ${figures.met ? 'MET' : 'MISSED'}`);
console.log(`  CPU per event (100 filters): ${figures.cpuUsPerEvent} µs; first event (parse + compile): ${figures.firstEventCompileUsPerSubscriber} µs per subscriber`);

mkdirSync('.data/bench', { recursive: true });
const file = '.data/bench/delivery.json';
const summary = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
summary.filters = { ...figures, at: new Date().toISOString() };
writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`Written: ${file} (filters)`);
