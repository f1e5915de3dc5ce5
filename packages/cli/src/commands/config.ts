// `herald config get|set|list`.
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { normalizeInstanceUrl, settableConfigKeys, type ConfigFile } from '../config/schema.js';
import { openConfigStore } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';

const keyList = Object.entries(settableConfigKeys)
  .map(([key, meaning]) => `  ${key}: ${meaning}`)
  .join('\n');

const getHelp: CommandHelp = { usage: 'herald config get <key>', summary: 'Print a configuration value (empty line when unset).', flags: [helpFlag], examples: ['herald config get current_org'] };
const setHelp: CommandHelp = { usage: 'herald config set <key> <value>', summary: 'Set a configuration value.', flags: [helpFlag], examples: ['herald config set current_org acme'] };
const listHelp: CommandHelp = { usage: 'herald config list', summary: 'Print every configuration value as key=value.', flags: [helpFlag], examples: ['herald config list'] };

export const configHelp: CommandHelp = {
  usage: 'herald config <command>',
  summary: 'Get and set configuration values.',
  description: `Keys:\n${keyList}\nTokens are not configuration values: use herald login/logout.`,
  flags: [helpFlag],
  subcommands: [
    ['get', getHelp.summary],
    ['set', setHelp.summary],
    ['list', listHelp.summary],
  ],
  examples: ['herald config set current_org acme', 'herald config get current_org', 'herald config list'],
};

function checkKey(key: string): keyof ConfigFile & string {
  if (!(key in settableConfigKeys)) {
    throw usageError('UNKNOWN_CONFIG_KEY', `unknown configuration key "${key}" (known: ${Object.keys(settableConfigKeys).join(', ')})`);
  }
  return key as keyof ConfigFile & string;
}

async function parse(argv: readonly string[], help: CommandHelp, path: string, names: readonly string[]) {
  return (await parseCommand(argv, help, path, names, [helpFlag]))?.positionals;
}

async function get(argv: readonly string[]): Promise<number> {
  const positionals = await parse(argv, getHelp, 'herald config get', ['key']);
  if (!positionals) return ExitCode.ok;
  const key = checkKey(positionals[0] as string);
  const value = openConfigStore().readConfig()[key];
  await writeOut(`${typeof value === 'string' ? value : ''}\n`);
  return ExitCode.ok;
}

async function set(argv: readonly string[]): Promise<number> {
  const positionals = await parse(argv, setHelp, 'herald config set', ['key', 'value']);
  if (!positionals) return ExitCode.ok;
  const key = checkKey(positionals[0] as string);
  const raw = positionals[1] as string;
  const value = key === 'current_instance' ? normalizeInstanceUrl(raw) : raw;
  const store = openConfigStore();
  store.writeConfig({ ...store.readConfig(), [key]: value });
  return ExitCode.ok;
}

async function list(argv: readonly string[]): Promise<number> {
  const positionals = await parse(argv, listHelp, 'herald config list', []);
  if (!positionals) return ExitCode.ok;
  const config = openConfigStore().readConfig();
  const lines = Object.keys(settableConfigKeys).map((key) => `${key}=${config[key as keyof ConfigFile] ?? ''}\n`);
  await writeOut(lines.join(''));
  return ExitCode.ok;
}

export function runConfig(argv: readonly string[]): Promise<number> {
  return runSubcommand('herald config', argv, { get, set, list }, renderHelp(configHelp));
}
