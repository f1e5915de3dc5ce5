// `herald webhooks subscribers list|get|create|update|delete` (recover|recovery in ./recover.ts) and
// `herald webhooks deliveries [list|retry]`.
import { encodePathSegment } from '../http/endpoint.js';
import { booleanFlag, listFlag, stringFlag, type FlagSpec, type ParsedArgs } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand, runSubcommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import { activeInstance, openConfigStore } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { callApi } from '../http/client.js';
import { readFileOrStdin } from '../io.js';
import { printResult, withProgress } from '../output.js';
import type { Column } from '../view.js';
import { fetchList } from './fetch-list.js';
import { disabledNotices } from './subscriber-notices.js';
import { recoverHelp, recoveryHelp, runRecover, runRecovery } from './recover.js';
import { parsePageNumber, resourcePath, subscriberRequestFromFlags } from './subscriber-request.js';

const collection = '/api/v0.9/webhook-subscribers';
const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };
const pageFlags: readonly FlagSpec[] = [
  { name: 'limit', kind: 'string', valueName: 'n', description: 'Maximum records (server default 20, at most 100)' },
  { name: 'offset', kind: 'string', valueName: 'n', description: 'Records to skip' },
  { name: 'all', kind: 'boolean', description: 'Fetch every page' },
];
const bodyFlags: readonly FlagSpec[] = [
  { name: 'id', kind: 'string', valueName: 'handle', description: 'Handle (on update: rename)' },
  { name: 'name', kind: 'string', valueName: 'text', description: 'Display name (displayName)' },
  { name: 'url', kind: 'string', valueName: 'url', description: 'Target URL that receives deliveries (targetUrl)' },
  { name: 'event', kind: 'repeatable', valueName: 'pattern', description: 'Event filter entry, e.g. apikey.* (repeat or comma-separate)' },
  {
    name: 'filter',
    kind: 'string',
    valueName: 'json',
    description: 'Payload filter, a JSON object (inline, @file or @- for stdin), e.g. \'{"data.amount":{"$gte":100}}\'; none removes it (docs/filters.md)',
  },
  {
    name: 'ordering',
    kind: 'string',
    valueName: 'aggregate|none',
    description: 'aggregate: deliver the events of one aggregateType + aggregateId one at a time, in order; none: no order (docs/ordering.md)',
  },
  {
    name: 'egress-proxy',
    kind: 'string',
    valueName: 'name|none|default',
    description: "Which egress proxy the server sends this subscriber's deliveries through: a name it configured, none (direct) or default (the server's default)",
  },
  { name: 'client-cert', kind: 'string', valueName: 'file', description: 'PEM client certificate presented to the endpoint (mutual TLS); needs --client-key' },
  { name: 'client-key', kind: 'string', valueName: 'file', description: 'PEM private key of --client-cert; stored encrypted, never shown' },
  { name: 'ca-bundle', kind: 'string', valueName: 'file', description: "PEM CA certificates trusted for the endpoint's server certificate, instead of the public ones" },
  { name: 'no-client-cert', kind: 'boolean', description: 'Remove the client certificate, its key and the CA bundle' },
  { name: 'oauth2-token-url', kind: 'string', valueName: 'url', description: 'OAuth2 token endpoint Herald obtains a Bearer token from (client credentials); needs --oauth2-client-id and --oauth2-client-secret-file' },
  { name: 'oauth2-client-id', kind: 'string', valueName: 'id', description: 'OAuth2 client id' },
  { name: 'oauth2-client-secret-file', kind: 'string', valueName: 'file', description: 'Read the OAuth2 client secret from a file ("-" = stdin); stored encrypted, never shown' },
  { name: 'oauth2-scope', kind: 'string', valueName: 'scopes', description: 'OAuth2 scope asked for (space-separated)' },
  { name: 'oauth2-audience', kind: 'string', valueName: 'audience', description: 'OAuth2 audience asked for' },
  { name: 'oauth2-client-auth', kind: 'string', valueName: 'basic|body', description: 'How the client id and secret reach the token endpoint (default basic: an HTTP Basic header)' },
  { name: 'no-oauth2', kind: 'boolean', description: 'Remove the OAuth2 client credentials' },
  { name: 'enabled', kind: 'string', valueName: 'true|false', description: 'Whether the subscriber receives deliveries' },
  { name: 'timeout-ms', kind: 'string', valueName: 'ms', description: 'Delivery time-out in milliseconds' },
  { name: 'secret-file', kind: 'string', valueName: 'file', description: 'Read the signing secret from a file ("-" = stdin)' },
  { name: 'input', kind: 'string', valueName: 'file', description: 'JSON request body to start from ("-" = stdin); flags override its fields' },
];

const subscriberColumns: readonly Column[] = [
  { header: 'ID', path: 'id' },
  { header: 'NAME', path: 'displayName' },
  { header: 'ENABLED', path: 'enabled' },
  { header: 'EVENTS', path: 'events' },
  { header: 'SECRET', path: 'hasSecret' },
  { header: 'TARGET URL', path: 'targetUrl' },
];
const deliveryColumns: readonly Column[] = [
  { header: 'DELIVERY', path: 'deliveryId' },
  { header: 'EVENT TYPE', path: 'eventType' },
  { header: 'SEQ', path: 'sequence', optional: true },
  { header: 'STATUS', path: 'status' },
  { header: 'HTTP', path: 'lastHttpStatus' },
  { header: 'LAST ATTEMPT', path: 'lastAttemptAt' },
  { header: 'ERROR', path: 'lastError' },
];

const helps = {
  list: {
    usage: 'herald webhooks subscribers list [--listeners] [--limit n] [--offset n] [--all] [--json]',
    summary: 'List webhook subscribers (secrets never appear).',
    description: "The temporary subscribers of 'herald webhooks listen' (ids lst_…) are left out unless --listeners is given.",
    flags: [
      { name: 'listeners', kind: 'boolean', description: "Also list the temporary subscribers of 'herald webhooks listen' (?listeners=true)" },
      ...pageFlags,
      jsonFlag,
      helpFlag,
    ],
    examples: [
      'herald webhooks subscribers list',
      'herald webhooks subscribers list --listeners',
      'herald webhooks subscribers list --all --json | jq \'.list[].id\'',
    ],
  },
  get: {
    usage: 'herald webhooks subscribers get <id> [--json]',
    summary: 'Show one subscriber.',
    flags: [jsonFlag, helpFlag],
    examples: ['herald webhooks subscribers get billing'],
  },
  create: {
    usage: 'herald webhooks subscribers create --name <text> --url <url> [flags]',
    summary: 'Create a subscriber.',
    flags: [...bodyFlags, jsonFlag, helpFlag],
    examples: [
      'herald webhooks subscribers create --id billing --name Billing --url https://billing.example.com/hooks --event apikey.* --event subscription.created',
      'herald webhooks subscribers create --name Audit --url https://audit.example.com/in --secret-file secret.txt',
      'herald webhooks subscribers create --input subscriber.json',
    ],
  },
  update: {
    usage: 'herald webhooks subscribers update <id> [flags]',
    summary: 'Change a subscriber; only the fields given change.',
    flags: [...bodyFlags, jsonFlag, helpFlag],
    examples: [
      'herald webhooks subscribers update billing --enabled false',
      'herald webhooks subscribers update billing --event "apikey.*,subscription.*"',
      'herald webhooks subscribers update billing --filter \'{"data.amount":{"$gte":100},"data.currency":{"$in":["EUR","USD"]}}\'',
      'herald webhooks subscribers update billing --filter none',
      'herald webhooks subscribers update billing --ordering aggregate',
      'herald webhooks subscribers update billing --egress-proxy eu',
      'herald webhooks subscribers update billing --client-cert client.crt --client-key client.key --ca-bundle receiver-ca.crt',
      'herald webhooks subscribers update billing --no-client-cert',
      'herald webhooks subscribers update billing --oauth2-token-url https://auth.example.com/oauth/token --oauth2-client-id herald --oauth2-client-secret-file client-secret.txt --oauth2-scope webhooks:receive',
      'herald webhooks subscribers update billing --no-oauth2',
    ],
  },
  delete: {
    usage: 'herald webhooks subscribers delete <id>',
    summary: 'Delete a subscriber.',
    flags: [helpFlag],
    examples: ['herald webhooks subscribers delete billing'],
  },
  deliveries: {
    usage: 'herald webhooks deliveries [list] <subscriber> [--cursor c] [--json]',
    summary: 'Recent delivery attempts of a subscriber, newest first.',
    description: [
      'The word "list" may be left out, except for a subscriber named "list" or "retry".',
      'The 50 most recent; older ones page by page with --cursor, the nextCursor of the previous page (with --json).',
    ].join('\n'),
    flags: [{ name: 'cursor', kind: 'string', valueName: 'c', description: 'Start where a previous page ended: its nextCursor' }, jsonFlag, helpFlag],
    subcommands: [
      ['list', 'Recent deliveries of a subscriber (the default)'],
      ['retry', 'Retry one delivery now'],
    ],
    examples: ['herald webhooks deliveries billing', 'herald webhooks deliveries list billing --json', 'herald webhooks deliveries retry 7d0c… --event 0f9c2a4e-…'],
  },
  retry: {
    usage: 'herald webhooks deliveries retry <delivery> --event <event> [--json]',
    summary: 'Retry one delivery now, with a fresh retry budget (needs scope dp:delivery:manage).',
    description: [
      'The server addresses a delivery under its event, so --event is required. Both ids are shown by',
      "'herald webhooks events get <event>'. A delivery in flight or of a disabled subscriber is not retried.",
    ].join('\n'),
    flags: [{ name: 'event', kind: 'string', valueName: 'id', description: 'The event the delivery belongs to' }, jsonFlag, helpFlag],
    examples: ['herald webhooks deliveries retry 7d0c… --event 0f9c2a4e-…'],
  },
} satisfies Record<string, CommandHelp>;

export const subscribersHelp: CommandHelp = {
  usage: 'herald webhooks subscribers <command>',
  summary: 'Manage webhook subscribers (/api/v0.9/webhook-subscribers).',
  flags: [helpFlag],
  subcommands: [
    ...(['list', 'get', 'create', 'update', 'delete'] as const).map((name) => [name, helps[name].summary] as const),
    ['recover', recoverHelp.summary],
    ['recovery', recoveryHelp.summary],
  ],
  examples: [
    'herald webhooks subscribers list',
    'herald webhooks subscribers create --name Billing --url https://billing.example.com/hooks',
    'herald webhooks subscribers recover billing --since 2h --wait',
  ],
};

async function requestBody(args: ParsedArgs): Promise<Record<string, unknown>> {
  const inputPath = stringFlag(args, 'input');
  let base: Record<string, unknown> = {};
  if (inputPath !== undefined) {
    const text = (await readFileOrStdin(inputPath, '--input')).toString('utf8');
    try {
      base = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new CliError('INPUT_NOT_JSON', `--input ${inputPath} is not valid JSON`, ExitCode.input);
    }
  }
  const secretFile = stringFlag(args, 'secret-file');
  const secret = secretFile === undefined ? undefined : (await readFileOrStdin(secretFile, '--secret-file')).toString('utf8').trim();
  // JSON cannot start with `@`, so `@path` / `@-` is unambiguous.
  const filterArg = stringFlag(args, 'filter');
  const filter = filterArg?.startsWith('@') ? (await readFileOrStdin(filterArg.slice(1), '--filter')).toString('utf8') : filterArg;
  const readPem = async (flag: string): Promise<string | undefined> => {
    const path = stringFlag(args, flag);
    return path === undefined ? undefined : (await readFileOrStdin(path, `--${flag}`)).toString('utf8');
  };
  const clientTls = {
    certificate: await readPem('client-cert'),
    key: await readPem('client-key'),
    caBundle: await readPem('ca-bundle'),
    remove: booleanFlag(args, 'no-client-cert'),
  };
  const clientSecretFile = stringFlag(args, 'oauth2-client-secret-file');
  const oauth2 = {
    tokenUrl: stringFlag(args, 'oauth2-token-url'),
    clientId: stringFlag(args, 'oauth2-client-id'),
    // Like --secret-file: a secret never travels in argv, where other users' `ps` could read it.
    clientSecret: clientSecretFile === undefined ? undefined : (await readFileOrStdin(clientSecretFile, '--oauth2-client-secret-file')).toString('utf8').trim(),
    scope: stringFlag(args, 'oauth2-scope'),
    audience: stringFlag(args, 'oauth2-audience'),
    clientAuth: stringFlag(args, 'oauth2-client-auth'),
    remove: booleanFlag(args, 'no-oauth2'),
  };
  return subscriberRequestFromFlags(
    {
      id: stringFlag(args, 'id'),
      name: stringFlag(args, 'name'),
      url: stringFlag(args, 'url'),
      events: listFlag(args, 'event'),
      enabled: stringFlag(args, 'enabled'),
      timeoutMs: stringFlag(args, 'timeout-ms'),
      secret,
      filter,
      ordering: stringFlag(args, 'ordering'),
      egressProxy: stringFlag(args, 'egress-proxy'),
      clientTls,
      oauth2,
    },
    base,
  );
}

function printNotices(data: unknown): void {
  for (const line of disabledNotices(data)) process.stderr.write(`${line}\n`);
}

async function list(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, helps.list, 'herald webhooks subscribers list', []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const query: [string, string][] = [];
  if (booleanFlag(args, 'listeners')) query.push(['listeners', 'true']);
  const limit = parsePageNumber(stringFlag(args, 'limit'), '--limit');
  const offset = parsePageNumber(stringFlag(args, 'offset'), '--offset');
  if (limit !== undefined) query.push(['limit', limit]);
  if (offset !== undefined) query.push(['offset', offset]);
  const instance = activeInstance(openConfigStore());
  const data = await withProgress('Loading subscribers', () => fetchList(instance, { endpoint: collection, query, all: booleanFlag(args, 'all') }), json);
  await printResult(data, { kind: 'table', columns: subscriberColumns }, json);
  printNotices(data);
  return ExitCode.ok;
}

async function get(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, helps.get, 'herald webhooks subscribers get', ['id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-subscribers', args.positionals[0] as string);
  printNotices(await callAndPrint('Loading subscriber', { method: 'GET', endpoint }, { kind: 'record' }, json));
  return ExitCode.ok;
}

async function create(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, helps.create, 'herald webhooks subscribers create', []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const body = await requestBody(args);
  if (body.targetUrl === undefined) throw usageError('MISSING_FLAG', 'missing --url (the target URL)', usageHint('herald webhooks subscribers create'));
  if (body.displayName === undefined) throw usageError('MISSING_FLAG', 'missing --name (the display name)', usageHint('herald webhooks subscribers create'));
  await callAndPrint('Creating subscriber', { method: 'POST', endpoint: collection, body }, { kind: 'record' }, json);
  return ExitCode.ok;
}

async function update(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, helps.update, 'herald webhooks subscribers update', ['id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-subscribers', args.positionals[0] as string);
  const body = await requestBody(args);
  if (Object.keys(body).length === 0) throw usageError('NOTHING_TO_UPDATE', 'nothing to update: pass at least one field flag', usageHint('herald webhooks subscribers update'));
  printNotices(await callAndPrint('Updating subscriber', { method: 'PUT', endpoint, body }, { kind: 'record' }, json));
  return ExitCode.ok;
}

async function remove(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, helps.delete, 'herald webhooks subscribers delete', ['id']);
  if (!args) return ExitCode.ok;
  const id = args.positionals[0] as string;
  const instance = activeInstance(openConfigStore());
  await withProgress('Deleting subscriber', () => callApi(instance, { method: 'DELETE', endpoint: resourcePath('webhook-subscribers', id) }), false);
  process.stderr.write(`Deleted subscriber ${id}.\n`);
  return ExitCode.ok;
}

async function listDeliveries(argv: readonly string[], commandPath: string): Promise<number> {
  const args = await parseCommand(argv, helps.deliveries, commandPath, ['subscriber']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = resourcePath('webhook-subscribers', args.positionals[0] as string, '/deliveries');
  const cursor = stringFlag(args, 'cursor');
  if (cursor !== undefined && cursor.trim() === '') throw usageError('INVALID_FLAG_VALUE', '--cursor is empty: pass the nextCursor of a previous page');
  const query: [string, string][] = cursor === undefined ? [] : [['cursor', cursor]];
  await callAndPrint('Loading deliveries', { method: 'GET', endpoint, query }, { kind: 'table', columns: deliveryColumns }, json);
  return ExitCode.ok;
}

async function retryDelivery(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks deliveries retry';
  const args = await parseCommand(argv, helps.retry, commandPath, ['delivery']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const deliveryId = args.positionals[0] as string;
  const eventId = stringFlag(args, 'event');
  if (!eventId) throw usageError('MISSING_FLAG', "missing --event (the delivery's event id, shown by 'herald webhooks events get')", usageHint(commandPath));
  if (deliveryId.trim() === '') throw usageError('MISSING_ARGUMENT', 'the delivery id is empty', usageHint(commandPath));
  const endpoint = resourcePath('webhook-events', eventId, `/deliveries/${encodePathSegment(deliveryId)}/retry`);
  await callAndPrint('Retrying delivery', { method: 'POST', endpoint }, { kind: 'record' }, json);
  return ExitCode.ok;
}

/**
 * `deliveries <subscriber>` came before the list/retry subcommands and keeps working; a subscriber
 * named "list" or "retry" is reached with `deliveries list <name>`.
 */
export function runDeliveries(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'list') return listDeliveries(argv.slice(1), 'herald webhooks deliveries list');
  if (argv[0] === 'retry') return retryDelivery(argv.slice(1));
  return listDeliveries(argv, 'herald webhooks deliveries');
}

export function runSubscribers(argv: readonly string[]): Promise<number> {
  return runSubcommand(
    'herald webhooks subscribers',
    argv,
    { list, get, create, update, delete: remove, recover: runRecover, recovery: runRecovery },
    renderHelp(subscribersHelp),
  );
}
