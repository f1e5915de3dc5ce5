// `herald webhooks events list|get|send|redeliver`; `send --file` is send-file.ts.
import { booleanFlag, listFlag, stringFlag, type FlagSpec, type ParsedArgs } from '../args/parse.js';
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
import { BATCH_DEFAULT_SIZE, BATCH_MAX_EVENTS } from './event-batches.js';
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
  usage: 'herald webhooks events list [--status s] [--limit n] [--offset n | --cursor c] [--all] [--json]',
  summary: 'List recorded webhook events, newest first (needs scope dp:event:read).',
  flags: [
    { name: 'status', kind: 'string', valueName: 'status', description: `Only events with this status: ${eventStatuses.join(', ')}` },
    { name: 'limit', kind: 'string', valueName: 'n', description: 'Maximum records' },
    { name: 'offset', kind: 'string', valueName: 'n', description: 'Records to skip (a deep offset reads every record before it)' },
    { name: 'cursor', kind: 'string', valueName: 'c', description: 'Start where a previous page ended: its nextCursor (with --json); not with --offset' },
    { name: 'all', kind: 'boolean', description: 'Fetch every page (following nextCursor)' },
    jsonFlag,
    helpFlag,
  ],
  examples: [
    'herald webhooks events list',
    'herald webhooks events list --status FAILED --json',
    'herald webhooks events list --limit 100 --cursor "$(herald webhooks events list --limit 100 --json | jq -r .nextCursor)"',
  ],
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
  usage: 'herald webhooks events send --type <type> --aggregate-id <id> --data <json|@file|@-> [flags]\n  herald webhooks events send --file <events.ndjson|-> [--batch-size n] [--json]',
  summary: 'Publish an event, or every event of a file, to every matching subscriber (needs scope dp:event:publish).',
  description: [
    '--data is the payload, a JSON object: inline, @file, or @- for standard input. It is checked',
    'before anything is sent and goes to the server exactly as written.',
    'With --idempotency-key, sending the same event again returns the first one instead of a new event;',
    'the same key with a different event is refused (HTTP 409).',
    '',
    '--file publishes a file of events, one JSON object per line (NDJSON; - reads standard input):',
    'each line is an event as POST /webhook-events takes it, plus its own optional "idempotencyKey".',
    `The file is read a line at a time and sent in batches of --batch-size events (default ${BATCH_DEFAULT_SIZE},`,
    `at most ${BATCH_MAX_EVENTS}; a batch also stays under the server's 1 MiB). A bad line fails alone; the others`,
    'are published. Progress goes to standard error; the summary (counts, and every failed line with',
    'its error) to standard output. Exit 1 when any line failed.',
  ].join('\n'),
  flags: [
    { name: 'type', kind: 'string', valueName: 'type', description: 'Event type, family.action (eventType), e.g. apikey.generated' },
    { name: 'aggregate-id', kind: 'string', valueName: 'id', description: 'Id of the entity the event is about (aggregateId; required by the server)' },
    { name: 'data', kind: 'string', valueName: 'json', description: 'The payload: a JSON object, @file or @- (stdin)' },
    { name: 'sensitive', kind: 'repeatable', valueName: 'field', description: 'Top-level field of --data to encrypt at rest (repeatable)' },
    { name: 'idempotency-key', kind: 'string', valueName: 'key', description: 'Idempotency-Key header: a repeat returns the first event' },
    { name: 'file', kind: 'string', valueName: 'path', description: 'Publish every event of an NDJSON file (- reads standard input), in batches' },
    { name: 'batch-size', kind: 'string', valueName: 'n', description: `With --file: events per request, 1–${BATCH_MAX_EVENTS} (default ${BATCH_DEFAULT_SIZE})` },
    jsonFlag,
    helpFlag,
  ],
  examples: [
    'herald webhooks events send --type apikey.generated --aggregate-id key-1 --data \'{"name":"ci","token":"s3cr3t"}\' --sensitive token',
    'herald webhooks events send --type order.paid --aggregate-id order-42 --data @order.json --idempotency-key order-42-paid',
    'jq -c .payload event.json | herald webhooks events send --type order.paid --aggregate-id order-42 --data @-',
    'herald webhooks events send --file events.ndjson',
    'jq -c \'.orders[] | {eventType: "order.paid", aggregateId: .id, data: ., idempotencyKey: (.id + "-paid")}\' orders.json | herald webhooks events send --file -',
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
  examples: [
    'herald webhooks events list --status FAILED',
    'herald webhooks events send --type apikey.generated --aggregate-id key-1 --data @data.json',
    'herald webhooks events send --file events.ndjson',
  ],
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
  const cursor = stringFlag(args, 'cursor');
  if (cursor !== undefined && offset !== undefined) throw usageError('INVALID_FLAG_VALUE', '--cursor and --offset cannot be combined: a cursor names where the page begins', usageHint('herald webhooks events list'));
  if (cursor !== undefined && cursor.trim() === '') throw usageError('INVALID_FLAG_VALUE', '--cursor is empty: pass the nextCursor of a previous page');
  if (limit !== undefined) query.push(['limit', limit]);
  if (offset !== undefined) query.push(['offset', offset]);
  if (cursor !== undefined) query.push(['cursor', cursor]);
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

/** `--batch-size`: an integer within the server's bound per request. */
function parseBatchSize(value: string | undefined): number {
  if (value === undefined) return BATCH_DEFAULT_SIZE;
  const size = /^[1-9]\d*$/.test(value) ? Number(value) : Number.NaN;
  if (!(size <= BATCH_MAX_EVENTS)) throw usageError('INVALID_FLAG_VALUE', `--batch-size must be an integer from 1 to ${BATCH_MAX_EVENTS}, got ${JSON.stringify(value)}`);
  return size;
}

/** `send --file`: the one-event flags do not go with it, and --batch-size goes only with it. */
async function sendFromFile(args: ParsedArgs, commandPath: string, json: boolean): Promise<number> {
  const file = stringFlag(args, 'file') as string;
  const oneEventFlags = ['type', 'aggregate-id', 'data', 'sensitive', 'idempotency-key'].filter((name) => args.flags[name] !== undefined);
  if (oneEventFlags.length > 0) {
    throw usageError(
      'CONFLICTING_FLAGS',
      `--file takes every event from the file; ${oneEventFlags.map((name) => `--${name}`).join(', ')} ${oneEventFlags.length === 1 ? 'is' : 'are'} for sending one event (put the fields in each line instead)`,
      usageHint(commandPath),
    );
  }
  if (file === '') throw usageError('INVALID_FLAG_VALUE', '--file needs a file name, or - for standard input', usageHint(commandPath));
  const batchSize = parseBatchSize(stringFlag(args, 'batch-size'));
  const { sendFile } = await import('./send-file.js');
  return sendFile(activeInstance(openConfigStore()), { file, batchSize, json });
}

async function send(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks events send';
  const args = await parseCommand(argv, sendHelp, commandPath, []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  if (stringFlag(args, 'file') !== undefined) return sendFromFile(args, commandPath, json);
  if (stringFlag(args, 'batch-size') !== undefined) throw usageError('CONFLICTING_FLAGS', '--batch-size goes with --file', usageHint(commandPath));
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
