// `herald webhooks retention [get]` and `retention set`: how long the organization's settled
// events are kept (/api/v0.9/webhook-retention).
import { booleanFlag, listFlag, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { ExitCode } from '../errors.js';
import { writeOut } from '../io.js';
import { retentionRequestFromFlags } from './retention-request.js';

const ENDPOINT = '/api/v0.9/webhook-retention';
const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };

const getHelp: CommandHelp = {
  usage: 'herald webhooks retention [get] [--json]',
  summary: "Show how long the organization's settled events are kept, and the host default (needs scope dp:event:read).",
  description: 'source says whether the organization set its own policy or follows the host. 0 days keeps forever.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks retention', 'herald webhooks retention --json | jq .settledEventsDays'],
};
const setHelp: CommandHelp = {
  usage: 'herald webhooks retention set [--days N] [--type TYPE=DAYS]… | --host-default',
  summary: "Replace the organization's retention policy (needs scope dp:delivery:manage).",
  description:
    'Settled events (ALL_DELIVERED, FAILED) older than their window are removed with their deliveries and attempts by the next hourly run; events still being delivered never are. What you leave out follows the host default. A shorter window removes more at the next run.',
  flags: [
    { name: 'days', kind: 'string', description: 'Days settled events are kept (0 = forever)' },
    { name: 'type', kind: 'repeatable', description: 'An event type with a window of its own, TYPE=DAYS (repeatable)' },
    { name: 'host-default', kind: 'boolean', description: "Drop the organization's policy: the host default applies" },
    jsonFlag,
    helpFlag,
  ],
  examples: ['herald webhooks retention set --days 14', 'herald webhooks retention set --days 30 --type audit.logged=365 --type ping.sent=1', 'herald webhooks retention set --host-default'],
};
export const retentionHelp: CommandHelp = {
  usage: 'herald webhooks retention [get | set]',
  summary: "How long the organization's settled events are kept (/api/v0.9/webhook-retention).",
  flags: [helpFlag],
  subcommands: [
    ['get', `${getHelp.summary} (the default)`],
    ['set', setHelp.summary],
  ],
  examples: ['herald webhooks retention', 'herald webhooks retention set --days 14'],
};

async function get(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, getHelp, 'herald webhooks retention get', []);
  if (!args) return ExitCode.ok;
  await callAndPrint('Loading the retention policy', { method: 'GET', endpoint: ENDPOINT }, { kind: 'record' }, booleanFlag(args, 'json'));
  return ExitCode.ok;
}

async function set(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, setHelp, 'herald webhooks retention set', []);
  if (!args) return ExitCode.ok;
  const body = retentionRequestFromFlags({ days: stringFlag(args, 'days'), types: listFlag(args, 'type'), hostDefault: booleanFlag(args, 'host-default') });
  await callAndPrint('Saving the retention policy', { method: 'PUT', endpoint: ENDPOINT, body }, { kind: 'record' }, booleanFlag(args, 'json'));
  return ExitCode.ok;
}

/** Without a subcommand (or with only flags) it shows the policy; `--help` first shows the group's help. */
export async function runRetention(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === '--help' || first === '-h') {
    await writeOut(renderHelp(retentionHelp));
    return ExitCode.ok;
  }
  if (first === undefined || first.startsWith('-')) return get(argv);
  return runSubcommand('herald webhooks retention', argv, { get, set }, renderHelp(retentionHelp));
}
