// `herald webhooks trigger TYPE`: publishes a test event whose data is the type's documented example,
// so a subscriber can be tried end to end without writing a payload.
import { randomBytes } from 'node:crypto';
import { booleanFlag, stringFlag } from '../args/parse.js';
import { helpFlag, usageHint, type CommandHelp } from '../args/help.js';
import { parseCommand } from '../args/subcommands.js';
import type { ActiveInstance } from '../config/instance.js';
import { activeInstance, openConfigStore } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { callApi } from '../http/client.js';
import { printResult, withProgress } from '../output.js';
import { resourcePath } from './subscriber-request.js';

export const triggerHelp: CommandHelp = {
  usage: 'herald webhooks trigger <type> [--aggregate-id id] [--json]',
  summary: "Publish a test event of a type, with the type's documented example as its data (needs scopes dp:event:read and dp:event:publish).",
  description: [
    'The example comes from the instance\'s event catalog (herald webhooks event-types get <type>), where the',
    'operator sets it in the configuration: eventTypes[].example. A type without one is refused and nothing is',
    'published; send data of your own with herald webhooks events send instead.',
    'The event goes to every enabled subscriber whose filter matches, like any other.',
  ].join('\n'),
  flags: [
    { name: 'aggregate-id', kind: 'string', valueName: 'id', description: 'Id of the entity the event is about (default trigger-<random>)' },
    { name: 'json', kind: 'boolean', description: 'Print JSON even on a terminal' },
    helpFlag,
  ],
  examples: ['herald webhooks trigger apikey.generated', 'herald webhooks trigger order.paid --aggregate-id order-42'],
};

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function exampleOf(instance: ActiveInstance, type: string): Promise<Record<string, unknown>> {
  let data: unknown;
  try {
    ({ data } = await callApi(instance, { method: 'GET', endpoint: resourcePath('webhook-event-types', type) }));
  } catch (error) {
    if (error instanceof CliError && error.code === 'HTTP_404') {
      throw new CliError(error.code, error.message, error.exitCode, "Run 'herald webhooks event-types' for the types this instance publishes.");
    }
    throw error;
  }
  const example = isJsonObject(data) ? data.example : undefined;
  if (isJsonObject(example)) return example;
  throw new CliError(
    'NO_EXAMPLE',
    `event type "${type}" has no example to publish; nothing was published.\n` +
      `Add one to the instance's configuration: "example" in its entry of eventTypes, a JSON object valid against the type's dataSchema\n` +
      `(docs/server.md, Configuration), then restart it. Or publish data of your own:\n` +
      `  herald webhooks events send --type ${type} --aggregate-id <id> --data '{…}'`,
    ExitCode.failed,
  );
}

export async function runTrigger(argv: readonly string[]): Promise<number> {
  const commandPath = 'herald webhooks trigger';
  const args = await parseCommand(argv, triggerHelp, commandPath, ['type']);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const type = args.positionals[0] as string;
  if (type.trim() === '') throw usageError('MISSING_ARGUMENT', 'the event type is empty', usageHint(commandPath));
  const aggregateId = stringFlag(args, 'aggregate-id') ?? `trigger-${randomBytes(6).toString('hex')}`;
  if (aggregateId === '') throw usageError('INVALID_FLAG_VALUE', '--aggregate-id is empty', usageHint(commandPath));

  const instance = activeInstance(openConfigStore());
  const example = await withProgress('Loading the event type', () => exampleOf(instance, type), json);
  const body = { eventType: type, aggregateId, data: example };
  const { data } = await withProgress('Publishing event', () => callApi(instance, { method: 'POST', endpoint: '/api/v0.9/webhook-events', body }), json);
  await printResult(data, { kind: 'event' }, json);
  const eventId = isJsonObject(data) && typeof data.eventId === 'string' ? data.eventId : undefined;
  if (eventId !== undefined) {
    process.stderr.write(`Published event ${eventId} (${type}, aggregate ${aggregateId}) with the type's example as data.\n`);
    process.stderr.write(`Watch its deliveries: herald webhooks events get ${eventId}\n`);
  }
  return ExitCode.ok;
}
