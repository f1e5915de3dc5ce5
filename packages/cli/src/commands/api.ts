// `herald api <endpoint>`: spec area A. Must stay light: no Ink, no React on this path.
import { booleanFlag, listFlag, parseArgs, stringFlag, type FlagSpec, type ParsedArgs } from '../args/parse.js';
import { helpFlag, orgFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { classifyTypedValue, splitKeyValue, type TypedField } from '../api/fields.js';
import { assertKnownPlaceholders, assertPlaceholdersFilled, fillPlaceholders, resolvePlaceholderValues, usedPlaceholders } from '../api/placeholders.js';
import { resolveEndpointUrl } from '../http/endpoint.js';
import { planRequest, renderCurl, type RequestPlan } from '../api/request.js';
import { includeBlock, verboseRequest, verboseResponse } from '../api/transcript.js';
import { nextPageUrl, pageItems, parseJsonOrUndefined } from '../api/pagination.js';
import { requireToken } from '../config/instance.js';
import { findLinkFile } from '../config/store.js';
import { activeInstance, knownSecrets, openConfigStore, userAgent } from '../context.js';
import { headerValue, sendHttpRequest } from '../http/send.js';
import { readFileOrStdin, writeOut } from '../io.js';

const flags: readonly FlagSpec[] = [
  { name: 'method', short: 'X', kind: 'string', valueName: 'method', description: 'HTTP method (default GET, or POST when fields or --input are given)' },
  { name: 'raw-field', short: 'f', kind: 'repeatable', valueName: 'key=value', description: 'Add a string parameter' },
  { name: 'field', short: 'F', kind: 'repeatable', valueName: 'key=value', description: 'Add a typed parameter: true/false, integers, null, @file (@- = stdin), else string' },
  { name: 'header', short: 'H', kind: 'repeatable', valueName: 'name:value', description: 'Add a request header' },
  { name: 'input', kind: 'string', valueName: 'file', description: 'Send the file as the raw request body ("-" = stdin)' },
  { name: 'include', short: 'i', kind: 'boolean', description: 'Print the response status line and headers before the body' },
  { name: 'project', kind: 'string', valueName: 'project', description: 'Fill {project}; overrides the linked project' },
  orgFlag,
  { name: 'paginate', kind: 'boolean', description: 'Fetch every page (limit/offset or Link rel="next") and print each' },
  { name: 'slurp', kind: 'boolean', description: 'With --paginate: merge the pages\' items into one JSON array' },
  { name: 'jq', short: 'q', kind: 'string', valueName: 'expression', description: 'Filter the JSON response with jq (strings print raw); checked before the request' },
  { name: 'silent', kind: 'boolean', description: 'Do not print the response body' },
  { name: 'verbose', kind: 'boolean', description: 'Print request and response headers on stderr (token redacted)' },
  { name: 'dry-run', kind: 'boolean', description: 'Print the request as a curl command (credentials and secret-named fields redacted) and send nothing' },
  { name: 'show-secrets', kind: 'boolean', description: 'With --dry-run: show secret-named body fields (-f secret=…) as given; headers stay redacted' },
  helpFlag,
];

export const apiHelp: CommandHelp = {
  usage: 'herald api <endpoint> [flags]',
  summary: 'Send an authenticated HTTP request to the Herald API and print the response.',
  description: [
    'The endpoint is resolved against the instance\'s API base: "/orgs", "orgs" and "/api/v1/orgs"',
    'are the same. Paths starting with /api/v<version>/ (e.g. /api/v0.9/webhook-subscribers) use that',
    'version. A full URL must point at the current instance. "." and ".." segments (also as %2E) are',
    'resolved first and may not leave the API base.',
    '',
    'Placeholders {org} and {project} are filled from --org/--project, then the directory\'s link',
    '(herald link), then the config key current_org, each value encoded as one path segment. Any',
    'other {placeholder} is an error.',
    '',
    'Fields become the query string for GET and a JSON body for other methods. The body is printed',
    'exactly as received. On HTTP status 400 or above the body is still printed, "herald: HTTP <status>"',
    'goes to stderr and the exit code is 1.',
  ].join('\n'),
  flags,
  examples: [
    'herald api /orgs',
    'herald api /orgs/{org}/projects --jq \'.list[].id\'',
    'herald api -X POST /orgs/{org}/projects -f id=billing -f displayName=Billing',
    'herald api /api/v0.9/webhook-subscribers -F limit=50 --paginate --slurp',
    'herald api -X PUT /api/v0.9/webhook-subscribers/billing --input subscriber.json',
    'herald api -i /orgs/{org} -H \'Accept: application/json\'',
    'echo \'{"enabled":false}\' | herald api -X PUT /api/v0.9/webhook-subscribers/billing --input -',
  ],
};

const hint = usageHint('herald api');

interface FieldArgument {
  readonly key: string;
  readonly valueText: string;
  readonly typed: boolean;
}

/** -f and -F in command-line order (their order decides nested arrays and duplicate keys). */
function fieldArguments(args: ParsedArgs): FieldArgument[] {
  return args.occurrences
    .filter((occurrence) => occurrence.name === 'raw-field' || occurrence.name === 'field')
    .map((occurrence) => {
      const typed = occurrence.name === 'field';
      const { key, value } = splitKeyValue(occurrence.value, typed ? '-F/--field' : '-f/--raw-field');
      return { key, valueText: value, typed };
    });
}

async function readFields(fieldArgs: readonly FieldArgument[]): Promise<TypedField[]> {
  const fields: TypedField[] = [];
  for (const field of fieldArgs) {
    if (!field.typed) {
      fields.push({ key: field.key, value: field.valueText });
      continue;
    }
    const source = classifyTypedValue(field.valueText);
    const value = source.kind === 'literal' ? source.value : (await readFileOrStdin(source.path, `field "${field.key}"`)).toString('utf8');
    fields.push({ key: field.key, value });
  }
  return fields;
}

interface OutputOptions {
  readonly paginate: boolean;
  readonly slurp: boolean;
  readonly jqFilter: string | undefined;
  readonly verbose: boolean;
  readonly include: boolean;
  readonly silent: boolean;
}

/** Everything that happens before the first byte is sent; any error here means no request. */
async function prepareRequest(args: ParsedArgs, endpoint: string): Promise<{ plan: RequestPlan; secrets: string[] }> {
  const fieldArgs = fieldArguments(args);
  const method = stringFlag(args, 'method');
  const inputPath = stringFlag(args, 'input');
  const paginate = booleanFlag(args, 'paginate');
  if (booleanFlag(args, 'slurp') && !paginate) throw usageError('SLURP_WITHOUT_PAGINATE', '--slurp requires --paginate', hint);
  // --paginate implies GET: fields go to the query; a body or another method makes no sense.
  if (paginate && ((method !== undefined && method.toUpperCase() !== 'GET') || inputPath !== undefined)) {
    throw usageError('PAGINATE_NOT_GET', '--paginate works only with GET requests (no -X other than GET, no --input)', hint);
  }

  const store = openConfigStore();
  const config = store.readConfig();
  // The link file is looked for only when a placeholder needs it, so a broken one elsewhere is harmless.
  const link = usedPlaceholders(endpoint).size > 0 ? findLinkFile(process.cwd()) : undefined;
  const values = resolvePlaceholderValues({ org: stringFlag(args, 'org'), project: stringFlag(args, 'project') }, link ?? {}, config.current_org);
  assertPlaceholdersFilled(endpoint, values);

  const instance = activeInstance(store);
  const headerArgs = listFlag(args, 'header');
  const userGivesAuthorization = headerArgs.some((header) => /^\s*authorization\s*:/i.test(header));
  const token = userGivesAuthorization ? undefined : requireToken(instance);
  // Filled only after the endpoint's own "." and ".." are resolved: a value ".." is data, not a step up.
  const url = resolveEndpointUrl(instance.url, endpoint, { fill: (text) => fillPlaceholders(text, values) });

  const fields = await readFields(fieldArgs);
  const input = inputPath === undefined ? undefined : { bytes: await readFileOrStdin(inputPath, '--input'), path: inputPath };
  const explicitMethod = method ?? (paginate ? 'GET' : undefined);
  const plan = planRequest({ url, explicitMethod, fields, headerArgs, input, token, userAgent });
  return { plan, secrets: knownSecrets(instance) };
}

async function printFiltered(jsonText: string, options: OutputOptions): Promise<void> {
  if (options.jqFilter === undefined) {
    if (!options.silent) await writeOut(`${jsonText}\n`);
    return;
  }
  const output = await (await import('../api/jq.js')).runJq(jsonText, options.jqFilter);
  if (!options.silent) await writeOut(output);
}

/** Sends the request (and, with --paginate, the following pages) and prints as spec area A says. */
async function sendAndPrint(firstPlan: RequestPlan, secrets: readonly string[], options: OutputOptions): Promise<number> {
  const slurped: unknown[] = [];
  let plan: RequestPlan | undefined = firstPlan;
  const maxPages = 10_000; // a server that never reports the end must not loop forever

  for (let page = 0; plan && page < maxPages; page++) {
    if (options.verbose) process.stderr.write(verboseRequest(plan, secrets));
    const response = await sendHttpRequest({ method: plan.method, url: plan.url, headers: plan.headers, body: plan.body?.bytes });
    if (options.verbose) process.stderr.write(verboseResponse(response, secrets));
    if (options.include) await writeOut(includeBlock(response));

    if (response.statusCode >= 400) {
      // Rule 8: the body as received, the status on stderr, a non-zero exit.
      if (!options.silent) await writeOut(response.body);
      process.stderr.write(`herald: HTTP ${response.statusCode}\n`);
      return ExitCode.failed;
    }

    const parsed = options.paginate ? parseJsonOrUndefined(response.body) : undefined;
    if (options.slurp) {
      if (parsed === undefined) throw new CliError('NOT_JSON', '--slurp: a page is not JSON', ExitCode.failed);
      slurped.push(...pageItems(parsed));
    } else if (options.jqFilter !== undefined) {
      await printFiltered(response.body.toString('utf8'), options);
    } else if (!options.silent) {
      await writeOut(response.body); // rule 7: bytes unchanged
    }

    if (!options.paginate) break;
    const next = nextPageUrl(plan.url, parsed, headerValue(response.headers, 'link'));
    if (next && next.origin !== firstPlan.url.origin) {
      throw new CliError('FOREIGN_HOST', `next page ${next.origin} is not the current instance; stopping`, ExitCode.failed);
    }
    plan = next ? { ...plan, url: next } : undefined;
  }

  if (options.slurp) await printFiltered(JSON.stringify(slurped), options);
  return ExitCode.ok;
}

export async function runApiCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, flags, hint);
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(apiHelp));
    return ExitCode.ok;
  }
  if (args.positionals.length !== 1) {
    throw usageError('MISSING_ENDPOINT', args.positionals.length === 0 ? 'missing <endpoint> argument' : `expected one endpoint, got ${args.positionals.length}: ${args.positionals.join(' ')}`, hint);
  }
  const endpoint = args.positionals[0] as string;
  assertKnownPlaceholders(endpoint); // rule 2: fails before anything else is looked at
  const jqFilter = stringFlag(args, 'jq');
  // Compiled now, so a mistake in the filter is a usage error before the request, not after it.
  if (jqFilter !== undefined) await (await import('../api/jq.js')).checkJqFilter(jqFilter);

  const { plan, secrets } = await prepareRequest(args, endpoint);
  if (booleanFlag(args, 'dry-run')) {
    await writeOut(`${renderCurl(plan, secrets, booleanFlag(args, 'show-secrets'))}\n`);
    return ExitCode.ok;
  }
  return sendAndPrint(plan, secrets, {
    paginate: booleanFlag(args, 'paginate'),
    slurp: booleanFlag(args, 'slurp'),
    jqFilter,
    verbose: booleanFlag(args, 'verbose'),
    include: booleanFlag(args, 'include'),
    silent: booleanFlag(args, 'silent'),
  });
}
