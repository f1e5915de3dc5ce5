// `herald webhooks event-types [list]` and `event-types get TYPE`: the host's event catalog.
import { booleanFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { ExitCode } from '../errors.js';
import { writeOut } from '../io.js';
import type { Column } from '../view.js';
import { resourcePath } from './subscriber-request.js';

const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };
const columns: readonly Column[] = [
  { header: 'TYPE', path: 'type' },
  { header: 'SENSITIVE', path: 'sensitive' },
  { header: 'DESCRIPTION', path: 'description' },
];

const listHelp: CommandHelp = {
  usage: 'herald webhooks event-types [list] [--json]',
  summary: 'List the event types the instance publishes, its catalog (needs scope dp:event:read).',
  description: 'The word "list" may be left out. Each type may carry a description, sensitive fields, a data schema and an example.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks event-types', "herald webhooks event-types --json | jq -r '.list[].type'"],
};
const getHelp: CommandHelp = {
  usage: 'herald webhooks event-types get <type> [--json]',
  summary: 'Show one event type: description, sensitive fields, data schema and example.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks event-types get apikey.generated', 'herald webhooks event-types get apikey.generated --json | jq .example'],
};
export const eventTypesHelp: CommandHelp = {
  usage: 'herald webhooks event-types [list | get <type>]',
  summary: 'Read the event catalog (/api/v0.9/webhook-event-types).',
  flags: [helpFlag],
  subcommands: [
    ['list', `${listHelp.summary} (the default)`],
    ['get', getHelp.summary],
  ],
  examples: ['herald webhooks event-types', 'herald webhooks event-types get apikey.generated'],
};

async function list(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, listHelp, 'herald webhooks event-types list', []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  await callAndPrint('Loading event types', { method: 'GET', endpoint: '/api/v0.9/webhook-event-types' }, { kind: 'table', columns }, json);
  return ExitCode.ok;
}

async function get(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, getHelp, 'herald webhooks event-types get', ['type']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-event-types', args.positionals[0] as string);
  await callAndPrint('Loading event type', { method: 'GET', endpoint }, { kind: 'record' }, json);
  return ExitCode.ok;
}

/** Without a subcommand (or with only flags) it lists; `--help` first shows the group's help. */
export async function runEventTypes(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === '--help' || first === '-h') {
    await writeOut(renderHelp(eventTypesHelp));
    return ExitCode.ok;
  }
  if (first === undefined || first.startsWith('-')) return list(argv);
  return runSubcommand('herald webhooks event-types', argv, { list, get }, renderHelp(eventTypesHelp));
}
