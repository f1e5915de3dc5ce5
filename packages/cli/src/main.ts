// Command dispatch and the single place where errors become messages and exit codes.
import { CliError, ExitCode, usageError } from './errors.js';
import { VERSION } from './version.js';

type CommandRunner = (argv: readonly string[]) => Promise<number>;

/** Each command's module is imported only when that command runs. */
const commands: Record<string, { summary: string; load: () => Promise<CommandRunner> }> = {
  api: { summary: 'Send an authenticated request to the API and print the response', load: async () => (await import('./commands/api.js')).runApiCommand },
  login: { summary: 'Log in to a Herald instance with an API token', load: async () => (await import('./commands/auth.js')).runLogin },
  logout: { summary: 'Forget the token of an instance', load: async () => (await import('./commands/auth.js')).runLogout },
  instance: { summary: 'List, switch and remove instances', load: async () => (await import('./commands/instance.js')).runInstance },
  org: { summary: 'Set the active organization, list organizations', load: async () => (await import('./commands/org.js')).runOrg },
  config: { summary: 'Get and set configuration values', load: async () => (await import('./commands/config.js')).runConfig },
  link: { summary: 'Link the working directory to an organization and project', load: async () => (await import('./commands/link.js')).runLink },
  unlink: { summary: 'Remove the link of the working directory', load: async () => (await import('./commands/link.js')).runUnlink },
  webhooks: { summary: 'Manage webhook subscribers, deliveries and events', load: async () => (await import('./webhooks/command.js')).runWebhooks },
  completion: { summary: 'Print a shell completion script (bash, zsh)', load: async () => (await import('./commands/completion.js')).runCompletion },
};

export const commandNames = Object.keys(commands);

export function topLevelHelp(): string {
  const width = Math.max(...commandNames.map((name) => name.length));
  return [
    'Work with Herald webhooks from the command line.',
    '',
    'USAGE',
    '  herald <command> [subcommand] [flags]',
    '',
    'COMMANDS',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    '',
    'FLAGS',
    '  -h, --help     Show help for a command',
    '      --version  Print the version',
    '',
    'EXAMPLES',
    '  herald login --url https://herald.example.com --with-token < token.txt',
    '  herald api /orgs',
    '  herald webhooks subscribers list',
    '',
    'ENVIRONMENT',
    '  HERALD_URL, HERALD_TOKEN   instance and token, overriding the configuration',
    '  HERALD_CONFIG_DIR          configuration directory (default $XDG_CONFIG_HOME/herald or ~/.config/herald)',
    '',
    "Run 'herald <command> --help' for a command's flags. Exit codes: docs/cli.md.",
    '',
  ].join('\n');
}

/**
 * `--org` is a flag of the root command inherited by its subcommands, so `herald --org acme api …`
 * works too: a leading `--org X` / `--org=X` is moved behind the command name.
 */
export function moveLeadingOrgFlag(argv: readonly string[]): readonly string[] {
  const leading: string[] = [];
  let index = 0;
  for (;;) {
    const arg = argv[index];
    const value = argv[index + 1];
    if (arg === '--org' && value !== undefined) {
      leading.push(arg, value);
      index += 2;
    } else if (arg?.startsWith('--org=')) {
      leading.push(arg);
      index += 1;
    } else {
      break;
    }
  }
  const [command, ...rest] = argv.slice(index);
  if (leading.length === 0 || command === undefined) return argv;
  return [command, ...leading, ...rest];
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = moveLeadingOrgFlag(argv);
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    if (first === 'help' && rest[0] !== undefined) return dispatch([rest[0], '--help']);
    process.stdout.write(topLevelHelp());
    return first === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (first === '--version' || first === 'version') {
    process.stdout.write(`herald ${VERSION}\n`);
    return ExitCode.ok;
  }
  const command = commands[first];
  if (!command) {
    const what = first.startsWith('-') ? `unknown flag ${first}` : `unknown command "${first}"`;
    throw usageError(first.startsWith('-') ? 'UNKNOWN_FLAG' : 'UNKNOWN_COMMAND', what, "Run 'herald --help' for usage.");
  }
  return (await command.load())(rest);
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    // The reader went away (e.g. `herald api … | head -1`): not an error worth reporting.
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') return ExitCode.ok;
    if (error instanceof CliError) {
      process.stderr.write(`herald: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      return error.exitCode;
    }
    process.stderr.write(`herald: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 70; // EX_SOFTWARE: a bug, not a user error
  }
}
