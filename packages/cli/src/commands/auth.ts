// `herald login` and `herald logout`.
import { booleanFlag, parseArgs, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { expectPositionals } from '../args/subcommands.js';
import { normalizeInstanceUrl, type ConfigFile } from '../config/schema.js';
import { openConfigStore } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { callApiWithToken } from '../http/client.js';
import { readStdin, writeOut } from '../io.js';
import { orgHandles } from './org-handles.js';

const loginFlags: readonly FlagSpec[] = [
  { name: 'url', kind: 'string', valueName: 'url', description: 'Instance URL, e.g. https://herald.example.com (default: $HERALD_URL)' },
  { name: 'with-token', kind: 'boolean', description: 'Read the token from standard input (works without a terminal, e.g. in CI)' },
  helpFlag,
];

export const loginHelp: CommandHelp = {
  usage: 'herald login --url <url> [--with-token]',
  summary: 'Log in to a Herald instance with an API token.',
  description: [
    'The token is checked with GET /api/v1/orgs before it is saved (file mode 0600) and the instance',
    'becomes the current one. Without --with-token the token comes from $HERALD_TOKEN, or is asked for',
    'when standard input is a terminal. If the instance serves exactly one organization and no',
    'current_org is set, it becomes the active organization.',
  ].join('\n'),
  flags: loginFlags,
  examples: [
    'herald login --url https://herald.example.com --with-token < token.txt',
    'printf %s "$HERALD_ADMIN_TOKEN" | herald login --url http://127.0.0.1:8080 --with-token',
  ],
};

const logoutFlags: readonly FlagSpec[] = [
  { name: 'url', kind: 'string', valueName: 'url', description: 'Instance to log out of (default: the current instance)' },
  helpFlag,
];

export const logoutHelp: CommandHelp = {
  usage: 'herald logout [--url <url>]',
  summary: 'Forget the stored token of an instance (the instance stays in the list).',
  flags: logoutFlags,
  examples: ['herald logout', 'herald logout --url https://staging.herald.example.com'],
};

/** Asks on the terminal without echoing what is typed. */
async function promptHidden(question: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const { Writable } = await import('node:stream');
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  process.stderr.write(question);
  const reader = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => reader.question('', resolve));
  } finally {
    reader.close();
    process.stderr.write('\n');
  }
}

async function obtainToken(withToken: boolean): Promise<string> {
  let token: string;
  if (withToken) token = (await readStdin()).toString('utf8');
  else if (process.env.HERALD_TOKEN) token = process.env.HERALD_TOKEN;
  else if (process.stdin.isTTY) token = await promptHidden('Paste an API token: ');
  else {
    throw usageError('NO_TOKEN', 'no token given: pipe it on standard input with --with-token (herald login --url URL --with-token < token.txt)', usageHint('herald login'));
  }
  token = token.trim();
  if (!token) throw usageError('NO_TOKEN', 'the token is empty');
  return token;
}

export async function runLogin(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, loginFlags, usageHint('herald login'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(loginHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald login');
  const urlText = stringFlag(args, 'url') ?? process.env.HERALD_URL;
  if (!urlText) throw usageError('MISSING_URL', 'missing --url', usageHint('herald login'));
  const url = normalizeInstanceUrl(urlText); // an invalid URL stops here: nothing is read or sent
  const store = openConfigStore();
  const config = store.readConfig(); // a corrupt config stops here too
  const credentials = store.readCredentials();
  const token = await obtainToken(booleanFlag(args, 'with-token'));

  let data: unknown;
  try {
    ({ data } = await callApiWithToken(url, token, { method: 'GET', endpoint: '/api/v1/orgs' }));
  } catch (error) {
    if (error instanceof CliError && error.code.startsWith('HTTP_')) {
      throw new CliError('LOGIN_REJECTED', `${url} did not accept the token: ${error.message}`, ExitCode.config);
    }
    throw error;
  }

  const handles = orgHandles(data);
  const next: ConfigFile = {
    ...config,
    current_instance: url,
    instances: { ...config.instances, [url]: { url } },
    ...(config.current_org === undefined && handles.length === 1 ? { current_org: handles[0] } : {}),
  };
  store.writeCredentials({ ...credentials, tokens: { ...credentials.tokens, [url]: token } });
  store.writeConfig(next);
  process.stderr.write(`Logged in to ${url}.\n`);
  if (next.current_org !== config.current_org) process.stderr.write(`Active organization: ${next.current_org}\n`);
  return ExitCode.ok;
}

export async function runLogout(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, logoutFlags, usageHint('herald logout'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(logoutHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald logout');
  const store = openConfigStore();
  const config = store.readConfig();
  const urlText = stringFlag(args, 'url') ?? config.current_instance;
  if (!urlText) throw new CliError('NO_INSTANCE', 'no current instance: pass --url', ExitCode.config);
  const url = normalizeInstanceUrl(urlText);
  const credentials = store.readCredentials();
  if (credentials.tokens?.[url] === undefined) throw new CliError('NOT_LOGGED_IN', `not logged in to ${url}`, ExitCode.config);
  const tokens = { ...credentials.tokens };
  delete tokens[url];
  store.writeCredentials({ ...credentials, tokens });
  process.stderr.write(`Logged out of ${url}.\n`);
  return ExitCode.ok;
}
