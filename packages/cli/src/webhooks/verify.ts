// `herald webhooks verify`: checks a saved delivery's signature with @herald/receiver, which is
// imported only here and only when present (it is an optional part of an installation).
import { booleanFlag, listFlag, parseArgs, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { expectPositionals } from '../args/subcommands.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { readFileOrStdin, writeOut } from '../io.js';
import { addHeaderLine, parseSavedHeaders, type HeaderRecord } from './verify-input.js';

/** The part of @herald/receiver this command uses (kept local so the CLI compiles without it). */
interface ReceiverModule {
  verify(
    headers: Record<string, string>,
    rawBody: Uint8Array,
    secret: string,
    options: { profile?: 'standard' | 'api-portal'; toleranceSeconds?: number },
  ): { profile: string; eventId: string; timestamp: number };
}

const flags: readonly FlagSpec[] = [
  { name: 'body', kind: 'string', valueName: 'file', description: 'The delivery\'s raw body, byte for byte ("-" = stdin)' },
  { name: 'headers', kind: 'string', valueName: 'file', description: 'The delivery\'s headers: "Name: value" lines or a JSON object' },
  { name: 'header', short: 'H', kind: 'repeatable', valueName: 'name:value', description: 'A delivery header (repeatable; adds to --headers)' },
  { name: 'secret-file', kind: 'string', valueName: 'file', description: 'File holding the subscriber\'s secret (default: $HERALD_WEBHOOK_SECRET)' },
  { name: 'profile', kind: 'string', valueName: 'name', description: 'standard or api-portal (default: detected from the headers)' },
  { name: 'tolerance', kind: 'string', valueName: 'seconds', description: 'Accepted clock distance of the signature timestamp (default 300)' },
  { name: 'ignore-timestamp', kind: 'boolean', description: 'Check the signature only, however old the delivery is' },
  helpFlag,
];

export const verifyHelp: CommandHelp = {
  usage: 'herald webhooks verify --body <file> (--headers <file> | -H <header>...) [flags]',
  summary: 'Check the signature of a saved webhook delivery.',
  description: 'Exits 0 when a signature matches the secret, 1 when none does (the reason goes to stderr).',
  flags,
  examples: [
    'herald webhooks verify --body body.json --headers headers.txt --secret-file secret.txt --ignore-timestamp',
    'HERALD_WEBHOOK_SECRET=$SECRET herald webhooks verify --body body.json -H "webhook-id: evt_1" -H "webhook-timestamp: 1700000000" -H "webhook-signature: v1,…"',
  ],
};

async function loadReceiver(): Promise<ReceiverModule> {
  const specifier = '@herald/receiver'; // a variable: resolved at run time, not by the compiler
  try {
    return (await import(specifier)) as ReceiverModule;
  } catch {
    throw new CliError('RECEIVER_MISSING', 'herald webhooks verify needs the @herald/receiver package, which is not installed (npm install @herald/receiver)', ExitCode.config);
  }
}

export async function runVerify(argv: readonly string[]): Promise<number> {
  const hint = usageHint('herald webhooks verify');
  const args = parseArgs(argv, flags, hint);
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(verifyHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald webhooks verify');
  const bodyPath = stringFlag(args, 'body');
  if (bodyPath === undefined) throw usageError('MISSING_FLAG', 'missing --body', hint);
  const profile = stringFlag(args, 'profile');
  if (profile !== undefined && profile !== 'standard' && profile !== 'api-portal') {
    throw usageError('INVALID_FLAG_VALUE', `--profile must be standard or api-portal, got "${profile}"`, hint);
  }
  const toleranceText = stringFlag(args, 'tolerance');
  if (toleranceText !== undefined && !/^\d+$/.test(toleranceText)) throw usageError('INVALID_FLAG_VALUE', `--tolerance must be whole seconds, got "${toleranceText}"`, hint);

  const headersPath = stringFlag(args, 'headers');
  const headers: HeaderRecord = headersPath === undefined ? {} : parseSavedHeaders((await readFileOrStdin(headersPath, '--headers')).toString('utf8'), headersPath);
  for (const line of listFlag(args, 'header')) addHeaderLine(headers, line, '-H');
  if (Object.keys(headers).length === 0) throw usageError('MISSING_FLAG', 'no headers: pass --headers or -H', hint);

  const secretFile = stringFlag(args, 'secret-file');
  const secret = secretFile !== undefined ? (await readFileOrStdin(secretFile, '--secret-file')).toString('utf8').trim() : process.env.HERALD_WEBHOOK_SECRET;
  if (!secret) throw usageError('MISSING_SECRET', 'no secret: pass --secret-file or set HERALD_WEBHOOK_SECRET', hint);
  const body = await readFileOrStdin(bodyPath, '--body');

  const receiver = await loadReceiver();
  const toleranceSeconds = booleanFlag(args, 'ignore-timestamp') ? Number.POSITIVE_INFINITY : toleranceText === undefined ? undefined : Number(toleranceText);
  try {
    const verified = receiver.verify(headers, body, secret, {
      ...(profile !== undefined ? { profile } : {}),
      ...(toleranceSeconds !== undefined ? { toleranceSeconds } : {}),
    });
    await writeOut(`Signature valid (profile ${verified.profile}, event ${verified.eventId || '-'}, signed at ${new Date(verified.timestamp * 1000).toISOString()}).\n`);
    return ExitCode.ok;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string') throw error;
    throw new CliError('SIGNATURE_INVALID', `signature not valid: ${(error as Error).message} (${code})`, ExitCode.failed);
  }
}
