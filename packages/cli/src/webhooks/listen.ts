// `herald webhooks listen --forward-to URL`: real, signed deliveries reaching a receiver on this
// machine without a public URL. The server creates an ephemeral subscriber for the stream; each
// delivery is POSTed to --forward-to as sent, and the receiver's answer is relayed back so the
// engine records it (and retries) as for any subscriber. A dropped stream is re-opened asking to
// resume the same listener, so the secret the developer configured keeps working. See docs/cli.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { booleanFlag, listFlag, stringFlag } from '../args/parse.js';
import { helpFlag, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand } from '../args/subcommands.js';
import { requireToken } from '../config/instance.js';
import { activeInstance, openConfigStore } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { callApiWithToken } from '../http/client.js';
import { describeDelivery, forwardDelivery, type RelayedDelivery } from './listen-forward.js';
import { checkEventPatterns, checkForwardTo } from './listen-input.js';
import { openListenStream } from './listen-stream.js';

export const listenHelp: CommandHelp = {
  usage: 'herald webhooks listen --forward-to <url> [--events <pattern>]... [--json]',
  summary: 'Receive real, signed deliveries on this machine: each is POSTed to --forward-to (needs scope dp:webhook_subscriber:create).',
  description: [
    'Opens a stream to the instance, which creates a temporary subscriber for it (hidden from subscriber lists)',
    'and prints its signing secret: verify deliveries with it as in production. What your receiver answers is',
    'recorded as the delivery\'s outcome, so failures are retried like any other. Ctrl-C removes the subscriber.',
    'The connection is re-opened with backoff when it drops, resuming the same subscriber and secret (the',
    'instance keeps it 60 s by default; deliveries meanwhile are retried). If it is gone by then, a new one',
    'is opened and its NEW secret printed with a warning.',
  ].join('\n'),
  flags: [
    { name: 'forward-to', kind: 'string', valueName: 'url', description: 'Local URL deliveries are POSTed to, e.g. http://localhost:3000/hooks' },
    { name: 'events', kind: 'repeatable', valueName: 'pattern', description: 'Event pattern(s), comma-separated or repeated (default every event)' },
    { name: 'json', kind: 'boolean', description: 'One JSON line per delivery (and one for the ready state)' },
    helpFlag,
  ],
  examples: ['herald webhooks listen --forward-to http://localhost:3000/hooks', "herald webhooks listen --forward-to http://localhost:3000/hooks --events 'apikey.*'"],
};

/** The server gives up on a delivery after 15 s; the local receiver must answer before that. */
const FORWARD_TIMEOUT_MS = 14_000;
const MAX_BACKOFF_MS = 30_000;

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

export async function runListen(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks listen';
  const args = await parseCommand(argv, listenHelp, commandPath, []);
  if (!args) return ExitCode.ok;
  const hint = usageHint(commandPath);
  const forwardTo = checkForwardTo(stringFlag(args, 'forward-to'), hint);
  const events = checkEventPatterns(listFlag(args, 'events'), hint);
  const json = booleanFlag(args, 'json');
  const instance = activeInstance(openConfigStore());
  const token = requireToken(instance);

  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let listenerId: string | undefined;
  /** How long the instance keeps the listener after a drop, as its ready frame said. */
  let graceMs: number | undefined;

  const relay = async (delivery: RelayedDelivery, id: string): Promise<void> => {
    const outcome = await forwardDelivery(forwardTo, delivery, FORWARD_TIMEOUT_MS);
    const { type, eventId, deliveryId } = describeDelivery(delivery);
    let relayError: string | undefined;
    try {
      await callApiWithToken(instance.url, token, {
        method: 'POST',
        endpoint: `/api/v0.9/webhook-listen/${id}/replies/${delivery.deliveryId}`,
        body: { status: outcome.status, body: outcome.body, durationMs: outcome.durationMs },
      });
    } catch (error) {
      relayError = `the outcome was not recorded: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (json) {
      line(JSON.stringify({ kind: 'delivery', type, eventId, deliveryId, status: outcome.status, durationMs: outcome.durationMs, ...(outcome.error ? { error: outcome.error } : {}), ...(relayError ? { relayError } : {}) }));
    } else {
      line(`→ ${outcome.status} ${type} ${eventId} ${outcome.durationMs} ms${outcome.error ? ` (${outcome.error})` : ''}`);
      if (relayError) process.stderr.write(`${relayError}\n`);
    }
  };

  try {
    for (let failures = 0; !stop.signal.aborted; ) {
      try {
        for await (const frame of openListenStream(instance.url, token, events, stop.signal, listenerId)) {
          if (frame.event === 'ready') {
            const ready = JSON.parse(frame.data) as { listenerId: string; secret: string; resumed?: boolean; graceMs?: number };
            const previous = listenerId;
            const reconnected = previous !== undefined;
            const resumed = reconnected && ready.resumed === true && ready.listenerId === previous;
            listenerId = ready.listenerId;
            graceMs = ready.graceMs;
            failures = 0;
            if (reconnected && !resumed) {
              // Not just noise on a reconnect: the receiver still verifies with the old secret and
              // will now reject every delivery until it is given the new one.
              process.stderr.write(
                `Warning: listener ${previous} could not be resumed (it expired or the instance restarted); the new listener ${listenerId} has a NEW signing secret — update your receiver. Deliveries the old one still had are cancelled ('herald webhooks events redeliver <event>' sends an event again).\n`,
              );
            }
            if (json) {
              line(
                JSON.stringify({ kind: 'ready', listenerId, secret: ready.secret, events, forwardTo, reconnected, secretChanged: reconnected && !resumed, ...(reconnected && !resumed ? { previousListenerId: previous } : {}) }),
              );
            } else if (resumed) {
              line(`Reconnected: listener ${listenerId} resumed, same signing secret.`);
            } else {
              line(`Signing secret: ${ready.secret}`);
              line(`Ready: forwarding ${events.join(', ')} to ${forwardTo} (listener ${listenerId}). Ctrl-C to stop.`);
            }
          } else if (frame.event === 'delivery' && listenerId !== undefined) {
            // Deliveries are relayed concurrently: one slow answer must not hold the others.
            void relay(JSON.parse(frame.data) as RelayedDelivery, listenerId);
          }
        }
      } catch (error) {
        if (stop.signal.aborted) break;
        if (error instanceof CliError) throw error;
      }
      if (stop.signal.aborted) break;
      failures += 1;
      const delayMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 6));
      const kept = listenerId !== undefined && graceMs !== undefined && graceMs > 0 ? ` (the instance keeps listener ${listenerId} for ${Math.round(graceMs / 1000)} s)` : '';
      process.stderr.write(`The connection to ${instance.url} was lost; reconnecting in ${Math.round(delayMs / 1000)} s${kept}.\n`);
      await sleep(delayMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // A closed stream leaves the listener waiting for a resume: the DELETE removes it now.
  if (listenerId !== undefined) {
    const id = listenerId;
    await callApiWithToken(instance.url, token, { method: 'DELETE', endpoint: `/api/v0.9/webhook-listen/${id}` }).catch((error: unknown) => {
      // 404: already gone (its grace period ended while disconnected), which is what was wanted.
      if (error instanceof CliError && error.code === 'HTTP_404') return;
      process.stderr.write(`Listener ${id} could not be removed now; the instance deletes it once its grace period ends.\n`);
    });
  }
  process.stderr.write('Stopped listening.\n');
  return ExitCode.ok;
}
