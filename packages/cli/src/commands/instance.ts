// `herald instance list|use|remove`.
import { booleanFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { normalizeInstanceUrl } from '../config/schema.js';
import { openConfigStore } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { writeOut } from '../io.js';

const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON' };

const listHelp: CommandHelp = {
  usage: 'herald instance list [--json]',
  summary: 'List the instances you logged in to; * marks the current one.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald instance list', 'herald instance list --json'],
};
const useHelp: CommandHelp = {
  usage: 'herald instance use <url>',
  summary: 'Make a known instance the current one.',
  flags: [helpFlag],
  examples: ['herald instance use https://staging.herald.example.com'],
};
const removeHelp: CommandHelp = {
  usage: 'herald instance remove <url>',
  summary: 'Forget an instance and its token.',
  flags: [helpFlag],
  examples: ['herald instance remove https://old.herald.example.com'],
};

export const instanceHelp: CommandHelp = {
  usage: 'herald instance <command>',
  summary: 'Manage the Herald instances this CLI knows.',
  flags: [helpFlag],
  subcommands: [
    ['list', listHelp.summary],
    ['use', useHelp.summary],
    ['remove', removeHelp.summary],
  ],
  examples: ['herald instance list', 'herald instance use https://herald.example.com'],
};

async function list(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, listHelp, 'herald instance list', []);
  if (!args) return ExitCode.ok;
  const store = openConfigStore();
  const config = store.readConfig();
  const tokens = store.readCredentials().tokens ?? {};
  const rows = Object.keys(config.instances ?? {}).map((url) => ({ url, current: url === config.current_instance, loggedIn: tokens[url] !== undefined }));
  if (booleanFlag(args, 'json')) {
    await writeOut(`${JSON.stringify(rows, null, 2)}\n`);
  } else if (rows.length === 0) {
    process.stderr.write("No instances. Run 'herald login --url URL'.\n");
  } else {
    await writeOut(rows.map((row) => `${row.current ? '*' : ' '} ${row.url}${row.loggedIn ? '' : ' (logged out)'}\n`).join(''));
  }
  return ExitCode.ok;
}

async function use(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, useHelp, 'herald instance use', ['url']);
  if (!args) return ExitCode.ok;
  const url = normalizeInstanceUrl(args.positionals[0] as string);
  const store = openConfigStore();
  const config = store.readConfig();
  if (!config.instances?.[url]) {
    throw new CliError('UNKNOWN_INSTANCE', `unknown instance ${url}: run 'herald login --url ${url}' first`, ExitCode.config);
  }
  store.writeConfig({ ...config, current_instance: url });
  process.stderr.write(`Now using ${url}.\n`);
  return ExitCode.ok;
}

async function remove(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, removeHelp, 'herald instance remove', ['url']);
  if (!args) return ExitCode.ok;
  const url = normalizeInstanceUrl(args.positionals[0] as string);
  const store = openConfigStore();
  const config = store.readConfig();
  if (!config.instances?.[url]) throw new CliError('UNKNOWN_INSTANCE', `unknown instance ${url}`, ExitCode.config);
  const instances = { ...config.instances };
  delete instances[url];
  const { current_instance: current, ...rest } = config;
  store.writeConfig({ ...rest, instances, ...(current !== undefined && current !== url ? { current_instance: current } : {}) });
  const credentials = store.readCredentials();
  const tokens = { ...credentials.tokens };
  delete tokens[url];
  store.writeCredentials({ ...credentials, tokens });
  process.stderr.write(`Removed ${url}.\n`);
  return ExitCode.ok;
}

export function runInstance(argv: readonly string[]): Promise<number> {
  return runSubcommand('herald instance', argv, { list, use, remove }, renderHelp(instanceHelp));
}
