// `herald webhooks …`: subscribers, deliveries, events, event types, retention, trigger, verify, listen, portal-link.
import { helpFlag, renderHelp, type CommandHelp } from '../args/help.js';
import { runSubcommand } from '../args/subcommands.js';

export const webhooksHelp: CommandHelp = {
  usage: 'herald webhooks <command>',
  summary: 'Manage webhook subscribers, read and publish events, redeliver, retry and recover deliveries.',
  description: 'On a terminal results are tables; with --json, or when output is piped, they are JSON.',
  flags: [helpFlag],
  subcommands: [
    ['subscribers', 'List, show, create, update and delete subscribers; recover their deliveries'],
    ['deliveries', 'Recent delivery attempts of one subscriber; retry one delivery'],
    ['events', 'List, show, send (one, or a file of them in batches) and redeliver events'],
    ['event-types', 'The event types the instance publishes (its catalog); export it as AsyncAPI'],
    ['retention', "How long the organization's settled events are kept"],
    ['trigger', "Publish a test event of a type with the type's documented example as data"],
    ['verify', 'Check the signature of a saved delivery'],
    ['listen', 'Forward real, signed deliveries to a receiver on this machine'],
    ['portal-link', "A single-use link to the consumer portal: a tenant's own view of its endpoints and deliveries"],
  ],
  examples: [
    'herald webhooks subscribers list',
    'herald webhooks subscribers create --name Billing --url https://billing.example.com/hooks --event "apikey.*"',
    'herald webhooks deliveries billing',
    'herald webhooks events list --status FAILED',
    'herald webhooks events send --type apikey.generated --aggregate-id key-1 --data @data.json',
    'herald webhooks events send --file events.ndjson',
    'herald webhooks events redeliver 0f9c2a4e-…',
    'herald webhooks event-types',
    'herald webhooks retention set --days 14',
    'herald webhooks trigger apikey.generated',
    'herald webhooks subscribers recover billing --since 2h --wait',
    'herald webhooks deliveries retry 7d0c… --event 0f9c2a4e-…',
    'herald webhooks verify --body body.json --headers headers.txt --secret-file secret.txt',
    "herald webhooks listen --forward-to http://localhost:3000/hooks --events 'apikey.*'",
    'herald webhooks portal-link --expires 30m',
  ],
};

export function runWebhooks(argv: readonly string[]): Promise<number> {
  return runSubcommand(
    'herald webhooks',
    argv,
    {
      subscribers: async (rest) => (await import('./subscribers.js')).runSubscribers(rest),
      deliveries: async (rest) => (await import('./subscribers.js')).runDeliveries(rest),
      events: async (rest) => (await import('./events.js')).runEvents(rest),
      'event-types': async (rest) => (await import('./event-types.js')).runEventTypes(rest),
      retention: async (rest) => (await import('./retention.js')).runRetention(rest),
      trigger: async (rest) => (await import('./trigger.js')).runTrigger(rest),
      verify: async (rest) => (await import('./verify.js')).runVerify(rest),
      listen: async (rest) => (await import('./listen.js')).runListen(rest),
      'portal-link': async (rest) => (await import('./portal-link.js')).runPortalLink(rest),
    },
    renderHelp(webhooksHelp),
  );
}
