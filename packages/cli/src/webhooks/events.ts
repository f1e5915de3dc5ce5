// `herald webhooks events list|get|send|redeliver`.
import { booleanFlag, listFlag, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { activeInstance, openConfigStore } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { callApi } from '../http/client.js';
import type { HttpHeader } from '../http/send.js';
import { readFileOrStdin } from '../io.js';
import { printResult, withProgress } from '../output.js';
import type { Column } from '../view.js';
import { checkIdempotencyKey, checkSensitiveFields, parseEventData, publishEventBody } from './event-request.js';
import { fetchList } from './fetch-list.js';
import { eventStatuses, parseEventStatus, parsePageNumber, resourcePath } from './subscriber-request.js';

const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };

const eventColumns: readonly Column[] = [
  { header: 'EVENT', path: 'eventId' },
  { header: 'TYPE', path: 'eventType' },
  { header: 'STATUS', path: 'status' },
  { header: 'OCCURRED', path: 'occurredAt' },
  { header: 'DELIVERIES', path: 'deliveries.length' },
  { header: 'AGGREGATE', path: 'aggregateId' },
];

const listHelp: CommandHelp = {
  usage: 'herald webhooks events list [--status s] [--limit n] [--offset n] [--all] [--json]',
  summary: 'List recorded webhook events, newest first (needs scope dp:event:read).',
  flags: [
    { name: 'status', kind: 'string', valueName: 'status', description: `Only events with this status: ${eventStatuses.join(', ')}` },
    { name: 'limit', kind: 'string', valueName: 'n', description: 'Maximum records' },
    { name: 'offset', kind: 'string', valueName: 'n', description: 'Records to skip' },
    { name: 'all', kind: 'boolean', description: 'Fetch every page' },
    jsonFlag,
    helpFlag,
  ],
  examples: ['herald webhooks events list', 'herald webhooks events list --status FAILED --json'],
};
const getHelp: CommandHelp = {
  usage: 'herald webhooks events get <id> [--json]',
  summary: 'Show one event with its deliveries and their attempt history.',
  description: [
    'On a terminal: the event, a table of its deliveries, then one table of attempts per delivery',
    '(number, status, HTTP status, error class, duration, start time). With --json, or when the',
    'output is piped, the JSON response.',
  ].join('\n'),
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks events get 0f9c2a4e-…', 'herald webhooks events get 0f9c2a4e-… --json | jq .deliveries'],
};
const sendHelp: CommandHelp = {
  usage: 'herald webhooks events send --type <type> --aggregate-id <id> --data <json|@file|@-> [flags]',
  summary: 'Publish an event to every matching subscriber (needs scope dp:event:publish).',
  description: [
    '--data is the payload, a JSON object: inline, @file, or @- for standard input. It is checked',
    'before anything is sent and goes to the server exactly as written.',
    'With --idempotency-key, sending the same event again returns the first one instead of a new event;',
    'the same key with a different event is refused (HTTP 409).',
  ].join('\n'),
  flags: [
    { name: 'type', kind: 'string', valueName: 'type', description: 'Event type, family.action (eventType), e.g. apikey.generated' },
    { name: 'aggregate-id', kind: 'string', valueName: 'id', description: 'Id of the entity the event is about (aggregateId; required by the server)' },
    { name: 'data', kind: 'string', valueName: 'json', description: 'The payload: a JSON object, @file or @- (stdin)' },
    { name: 'sensitive', kind: 'repeatable', valueName: 'field', description: 'Top-level field of --data to encrypt at rest (repeatable)' },
    { name: 'idempotency-key', kind: 'string', valueName: 'key', description: 'Idempotency-Key header: a repeat returns the first event' },
    jsonFlag,
    helpFlag,
  ],
  examples: [
    'herald webhooks events send --type apikey.generated --aggregate-id key-1 --data \'{"name":"ci","token":"s3cr3t"}\' --sensitive token',
    'herald webhooks events send --type order.paid --aggregate-id order-42 --data @order.json --idempotency-key order-42-paid',
    'jq -c .payload event.json | herald webhooks events send --type order.paid --aggregate-id order-42 --data @-',
  ],
};
const redeliverHelp: CommandHelp = {
  usage: 'herald webhooks events redeliver <id> [--json]',
  summary: 'Deliver an event again to every subscriber it was delivered to (needs scope dp:delivery:manage).',
  description: 'Rows of enabled subscribers that are not in flight go back to PENDING with a fresh retry budget.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks events redeliver 0f9c2a4e-…'],
};
export const eventsHelp: CommandHelp = {
  usage: 'herald webhooks events <command>',
  summary: 'Read, publish and redeliver webhook events (/api/v0.9/webhook-events).',
  flags: [helpFlag],
  subcommands: [
    ['list', listHelp.summary],
    ['get', getHelp.summary],
    ['send', sendHelp.summary],
    ['redeliver', redeliverHelp.summary],
  ],
  examples: ['herald webhooks events list --status FAILED', 'herald webhooks events send --type apikey.generated --aggregate-id key-1 --data @data.json'],
};

async function list(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, listHelp, 'herald webhooks events list', []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const query: [string, string][] = [];
  const status = stringFlag(args, 'status');
  if (status !== undefined) query.push(['status', parseEventStatus(status)]);
  const limit = parsePageNumber(stringFlag(args, 'limit'), '--limit');
  const offset = parsePageNumber(stringFlag(args, 'offset'), '--offset');
  if (limit !== undefined) query.push(['limit', limit]);
  if (offset !== undefined) query.push(['offset', offset]);
  const instance = activeInstance(openConfigStore());
  const data = await withProgress('Loading events', () => fetchList(instance, { endpoint: '/api/v0.9/webhook-events', query, all: booleanFlag(args, 'all') }), json);
  await printResult(data, { kind: 'table', columns: eventColumns }, json);
  return ExitCode.ok;
}

async function get(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, getHelp, 'herald webhooks events get', ['id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-events', args.positionals[0] as string);
  await callAndPrint('Loading event', { method: 'GET', endpoint }, { kind: 'event' }, json);
  return ExitCode.ok;
}

/** `--data` text: inline JSON, or `@path` / `@-` (JSON cannot start with `@`, so this is unambiguous). */
async function readEventData(value: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const text = (await readFileOrStdin(value.slice(1), '--data')).toString('utf8');
  return text.replace(/^\uFEFF/, ''); // editors on Windows save a byte order mark, which JSON.parse refuses
}

async function send(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks events send';
  const args = await parseCommand(argv, sendHelp, commandPath, []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const eventType = stringFlag(args, 'type');
  const aggregateId = stringFlag(args, 'aggregate-id');
  const dataArg = stringFlag(args, 'data');
  if (!eventType) throw usageError('MISSING_FLAG', 'missing --type (the event type, e.g. apikey.generated)', usageHint(commandPath));
  if (!aggregateId) throw usageError('MISSING_FLAG', 'missing --aggregate-id (the id of the entity the event is about)', usageHint(commandPath));
  if (dataArg === undefined) throw usageError('MISSING_FLAG', 'missing --data (a JSON object, @file or @-)', usageHint(commandPath));
  const sensitive = listFlag(args, 'sensitive');
  const idempotencyKey = stringFlag(args, 'idempotency-key');
  if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
  const dataText = await readEventData(dataArg);
  checkSensitiveFields(parseEventData(dataText), sensitive);

  const headers: HttpHeader[] = idempotencyKey === undefined ? [] : [['Idempotency-Key', idempotencyKey]];
  const instance = activeInstance(openConfigStore());
  const jsonText = publishEventBody({ eventType, aggregateId, dataText, sensitive });
  const { response, data } = await withProgress('Publishing event', () => callApi(instance, { method: 'POST', endpoint: '/api/v0.9/webhook-events', jsonText, headers }), json);
  // 201 is a new event; 200 is the one published earlier under this key, and no new fan-out.
  if (response.statusCode === 200 && idempotencyKey !== undefined) {
    process.stderr.write(`Idempotency-Key "${idempotencyKey}" was used before: this is the event published then (no new event).\n`);
  }
  await printResult(data, { kind: 'event' }, json);
  return ExitCode.ok;
}

async function redeliver(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, redeliverHelp, 'herald webhooks events redeliver', ['id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-events', args.positionals[0] as string, '/redeliver');
  await callAndPrint('Redelivering event', { method: 'POST', endpoint }, { kind: 'event' }, json);
  return ExitCode.ok;
}

export function runEvents(argv: readonly string[]): Promise<number> {
  return runSubcommand('herald webhooks events', argv, { list, get, send, redeliver }, renderHelp(eventsHelp));
}
