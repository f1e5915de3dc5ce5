// `herald webhooks events list|get`.
import { booleanFlag, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { activeInstance, openConfigStore } from '../context.js';
import { ExitCode } from '../errors.js';
import { callApi } from '../http/client.js';
import { printResult, withProgress, type Column } from '../output.js';
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
  summary: 'Show one event with the full details of its deliveries.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks events get 0f9c2a4e-…', 'herald webhooks events get 0f9c2a4e-… --json | jq .deliveries'],
};
export const eventsHelp: CommandHelp = {
  usage: 'herald webhooks events <command>',
  summary: 'Read recorded webhook events (/api/v0.9/webhook-events).',
  flags: [helpFlag],
  subcommands: [
    ['list', listHelp.summary],
    ['get', getHelp.summary],
  ],
  examples: ['herald webhooks events list --status FAILED'],
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
  const instance = activeInstance(openConfigStore());
  const { data } = await withProgress('Loading event', () => callApi(instance, { method: 'GET', endpoint }), json);
  await printResult(data, { kind: 'record' }, json);
  return ExitCode.ok;
}

export function runEvents(argv: readonly string[]): Promise<number> {
  return runSubcommand('herald webhooks events', argv, { list, get }, renderHelp(eventsHelp));
}
