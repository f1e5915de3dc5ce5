// `herald org use|list`.
import { booleanFlag, parseArgs, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { expectPositionals, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { openConfigStore } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';

const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };

const useHelp: CommandHelp = {
  usage: 'herald org use <org>',
  summary: 'Set the active organization (config key current_org).',
  flags: [helpFlag],
  examples: ['herald org use acme'],
};
const listHelp: CommandHelp = {
  usage: 'herald org list [--json]',
  summary: 'List the organizations of the current instance (GET /api/v1/orgs).',
  flags: [jsonFlag, helpFlag],
  examples: ['herald org list', 'herald org list --json'],
};
export const orgHelp: CommandHelp = {
  usage: 'herald org <command>',
  summary: 'Work with organizations.',
  flags: [helpFlag],
  subcommands: [
    ['use', useHelp.summary],
    ['list', listHelp.summary],
  ],
  examples: ['herald org use acme', 'herald org list'],
};

async function use(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, [helpFlag], usageHint('herald org use'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(useHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, ['org'], 'herald org use');
  const org = (args.positionals[0] as string).trim();
  if (!org) throw usageError('EMPTY_ORG', 'the organization is empty');
  const store = openConfigStore();
  store.writeConfig({ ...store.readConfig(), current_org: org });
  process.stderr.write(`Active organization: ${org}\n`);
  return ExitCode.ok;
}

async function list(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, [jsonFlag, helpFlag], usageHint('herald org list'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(listHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald org list');
  const json = booleanFlag(args, 'json');
  await callAndPrint('Loading organizations', { method: 'GET', endpoint: '/orgs' }, { kind: 'table', columns: [{ header: 'ID', path: 'id' }, { header: 'NAME', path: 'displayName' }] }, json);
  return ExitCode.ok;
}

export function runOrg(argv: readonly string[]): Promise<number> {
  return runSubcommand('herald org', argv, { use, list }, renderHelp(orgHelp));
}
