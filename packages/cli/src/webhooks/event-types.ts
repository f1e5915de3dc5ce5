// `herald webhooks event-types [list]`, `event-types get TYPE` and `event-types export --format F`:
// the host's event catalog.
import { booleanFlag, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { ExitCode, usageError } from '../errors.js';
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
/** Each export format and the document the instance serves for it. */
const exportFormats: Readonly<Record<string, string>> = { asyncapi: '/api/v0.9/asyncapi.json' };
const formatNames = Object.keys(exportFormats).join(', ');
const exportHelp: CommandHelp = {
  usage: 'herald webhooks event-types export --format asyncapi',
  summary: 'Print the catalog as a machine-readable document: asyncapi = AsyncAPI 3.0 JSON (needs scope dp:event:read).',
  description:
    'The document describes what subscribers of this instance receive: per event type its data, the envelope of the ' +
    "instance's signing profile, the signature headers and which fields arrive encrypted. It is printed as JSON, on a terminal too.",
  flags: [{ name: 'format', kind: 'string', valueName: 'format', description: `Document format: ${formatNames} (required)` }, helpFlag],
  examples: ['herald webhooks event-types export --format asyncapi > asyncapi.json'],
};
export const eventTypesHelp: CommandHelp = {
  usage: 'herald webhooks event-types [list | get <type> | export --format asyncapi]',
  summary: 'Read the event catalog (/api/v0.9/webhook-event-types), or export it as AsyncAPI (/api/v0.9/asyncapi.json).',
  flags: [helpFlag],
  subcommands: [
    ['list', `${listHelp.summary} (the default)`],
    ['get', getHelp.summary],
    ['export', exportHelp.summary],
  ],
  examples: ['herald webhooks event-types', 'herald webhooks event-types get apikey.generated', 'herald webhooks event-types export --format asyncapi'],
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

async function exportCatalog(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks event-types export';
  const args = await parseCommand(argv, exportHelp, commandPath, []);
  if (!args) return ExitCode.ok;
  const format = stringFlag(args, 'format');
  const hint = usageHint(commandPath);
  if (format === undefined) throw usageError('MISSING_FLAG', `missing --format (supported: ${formatNames})`, hint);
  const endpoint = Object.hasOwn(exportFormats, format) ? exportFormats[format] : undefined;
  if (endpoint === undefined) {
    // A value pasted by mistake can be long; the start of it is enough to recognise.
    const shown = format.length > 40 ? `${format.slice(0, 40)}…` : format;
    throw usageError('INVALID_FLAG_VALUE', `--format must be one of ${formatNames}, got ${JSON.stringify(shown)}`, hint);
  }
  // A document to save or feed to tools: JSON even on a terminal.
  await callAndPrint('Loading the event catalog', { method: 'GET', endpoint }, { kind: 'record' }, true);
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
  return runSubcommand('herald webhooks event-types', argv, { list, get, export: exportCatalog }, renderHelp(eventTypesHelp));
}
