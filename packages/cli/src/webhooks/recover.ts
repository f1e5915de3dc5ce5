// `herald webhooks subscribers recover ID --since …` and `… recovery ID RECOVERY_ID`: send a
// subscriber's settled deliveries of a time range again, and follow the recovery the server runs.
import { encodePathSegment } from '../http/endpoint.js';
import { booleanFlag, listFlag, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand } from '../args/subcommands.js';
import { callAndPrint } from '../call-and-print.js';
import type { ActiveInstance } from '../config/instance.js';
import { activeInstance, openConfigStore } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { callApi } from '../http/client.js';
import { printResult, withProgress } from '../output.js';
import {
  asRecovery,
  FIRST_POLL_MS,
  nextPollDelay,
  recoverableStatuses,
  recoveryProgressText,
  recoveryRequestBody,
  type RecoveryView,
} from './recovery-request.js';
import { resourcePath } from './subscriber-request.js';

const jsonFlag: FlagSpec = { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' };

export const recoverHelp: CommandHelp = {
  usage: 'herald webhooks subscribers recover <id> --since <dur|date-time> [--until <dur|date-time>] [--status s]... [--wait] [--json]',
  summary: "Send a subscriber's failed (or delivered) deliveries of a time range again (needs scope dp:delivery:manage).",
  description: [
    'Deliveries created in [--since, --until) with one of the statuses (default FAILED) go back to PENDING',
    'as their next attempts, with a fresh retry budget. The server answers at once with a recovery',
    '(QUEUED, then RUNNING, then COMPLETED) and sends rows back 200 per second.',
    '--since and --until take a duration back from now (s, m, h, d: 30m, 2h, 7d, 1h30m) or an ISO',
    'date-time with a zone (2025-01-31T00:00:00Z); --until defaults to now. A disabled subscriber is',
    'refused (HTTP 409): enable it first.',
    '--wait polls the recovery until it is COMPLETED (on a terminal, progress on standard error) and',
    'prints it then. Interrupting the wait does not stop the recovery.',
  ].join('\n'),
  flags: [
    { name: 'since', kind: 'string', valueName: 'dur|date-time', description: 'Deliveries created at or after this instant, e.g. 2h or 2025-01-31T00:00:00Z' },
    { name: 'until', kind: 'string', valueName: 'dur|date-time', description: 'Deliveries created before this instant (default: now)' },
    { name: 'status', kind: 'repeatable', valueName: 'status', description: `Which to send again: ${recoverableStatuses.join(', ')} (repeat or comma-separate; default FAILED)` },
    { name: 'wait', kind: 'boolean', description: 'Wait until the recovery is COMPLETED, then print it' },
    jsonFlag,
    helpFlag,
  ],
  examples: [
    'herald webhooks subscribers recover billing --since 2h',
    'herald webhooks subscribers recover billing --since 2025-01-31T00:00:00Z --until 2025-01-31T06:00:00Z --wait',
    'herald webhooks subscribers recover billing --since 1d --status FAILED --status DELIVERED --json',
  ],
};

export const recoveryHelp: CommandHelp = {
  usage: 'herald webhooks subscribers recovery <id> <recovery-id> [--json]',
  summary: 'Show the progress of a recovery: status and how many deliveries were sent again.',
  flags: [jsonFlag, helpFlag],
  examples: ['herald webhooks subscribers recovery billing rec_5f2b9c1e0a7d4e63'],
};

function recoveryEndpoint(subscriberId: string, recoveryId: string): string {
  if (recoveryId.trim() === '') throw usageError('MISSING_ARGUMENT', 'the recovery id is empty');
  return resourcePath('webhook-subscribers', subscriberId, `/recoveries/${encodePathSegment(recoveryId)}`);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls with back-off until COMPLETED; returns the last answer as the server sent it. */
async function waitUntilCompleted(instance: ActiveInstance, subscriberId: string, first: unknown): Promise<unknown> {
  let data = first;
  let recovery: RecoveryView = asRecovery(first);
  const ui = process.stderr.isTTY ? await import('../ui/render.js') : undefined;
  const progress = ui?.startProgress(recoveryProgressText(recovery));
  const interrupted = () => {
    progress?.stop();
    process.stderr.write(`Stopped waiting; the recovery goes on. Check it with: herald webhooks subscribers recovery ${subscriberId} ${recovery.recoveryId}\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    for (let delay = FIRST_POLL_MS; recovery.status !== 'COMPLETED'; delay = nextPollDelay(delay)) {
      await sleep(delay);
      data = (await callApi(instance, { method: 'GET', endpoint: recoveryEndpoint(subscriberId, recovery.recoveryId) })).data;
      recovery = asRecovery(data);
      progress?.update(recoveryProgressText(recovery));
    }
  } finally {
    process.off('SIGINT', interrupted);
    progress?.stop();
  }
  return data;
}

export async function runRecover(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks subscribers recover';
  const args = await parseCommand(argv, recoverHelp, commandPath, ['id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const subscriberId = args.positionals[0] as string;
  const since = stringFlag(args, 'since');
  if (since === undefined) throw usageError('MISSING_FLAG', 'missing --since (e.g. 2h, or 2025-01-31T00:00:00Z)', usageHint(commandPath));
  const body = recoveryRequestBody({ since, until: stringFlag(args, 'until'), statuses: listFlag(args, 'status') }, new Date());
  const endpoint = resourcePath('webhook-subscribers', subscriberId, '/recover');
  const instance = activeInstance(openConfigStore());
  const { data } = await withProgress('Asking for a recovery', () => callApi(instance, { method: 'POST', endpoint, body }), json);
  const recovery = asRecovery(data);
  if (booleanFlag(args, 'wait')) {
    await printResult(await waitUntilCompleted(instance, subscriberId, data), { kind: 'record' }, json);
    return ExitCode.ok;
  }
  await printResult(data, { kind: 'record' }, json);
  process.stderr.write(`Recovery ${recovery.recoveryId} is ${recovery.status}. Follow it with: herald webhooks subscribers recovery ${subscriberId} ${recovery.recoveryId}\n`);
  return ExitCode.ok;
}

export async function runRecovery(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, recoveryHelp, 'herald webhooks subscribers recovery', ['id', 'recovery-id']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const endpoint = recoveryEndpoint(args.positionals[0] as string, args.positionals[1] as string);
  await callAndPrint('Loading recovery', { method: 'GET', endpoint }, { kind: 'record' }, json);
  return ExitCode.ok;
}
