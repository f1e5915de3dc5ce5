// `herald webhooks portal-link`: a single-use link that opens the consumer portal (the console
// confined to one tenant's endpoints and deliveries), for the sender to hand to its customer.
import { booleanFlag, stringFlag } from '../args/parse.js';
import { helpFlag, type CommandHelp } from '../args/help.js';
import { parseCommand } from '../args/subcommands.js';
import { activeInstance, openConfigStore } from '../context.js';
import { ExitCode } from '../errors.js';
import { callApi } from '../http/client.js';
import { writeOut } from '../io.js';
import { withProgress } from '../output.js';
import { absoluteLink, portalLinkRequest } from './portal-link-request.js';

export const portalLinkHelp: CommandHelp = {
  usage: 'herald webhooks portal-link [--org org] [--expires 10m] [--json]',
  summary: 'Make a single-use consumer-portal link (needs scope dp:portal_link:create).',
  description: [
    'Prints the link on stdout. Whoever opens it first gets the portal for the organization: its endpoints,',
    'events, deliveries and attempts, retry, secret rotation and filters, under the name and colour the host',
    'is configured with. It can be opened once, before it expires; the session it opens lasts one hour.',
    'Treat it like a password until it is used.',
  ].join('\n'),
  flags: [
    { name: 'org', kind: 'string', valueName: 'org', description: "The tenant (default: the instance's organization, the only one it serves)" },
    { name: 'expires', kind: 'string', valueName: 'duration', description: 'How long it may be opened: 1m to 24h (default 10m)' },
    { name: 'json', kind: 'boolean', description: 'Print {url, orgId, expiresAt} as JSON' },
    helpFlag,
  ],
  examples: ['herald webhooks portal-link', 'herald webhooks portal-link --expires 30m --json'],
};

interface PortalLink {
  url: string;
  orgId: string;
  expiresAt: string;
}

export async function runPortalLink(argv: readonly string[]): Promise<number> {
  const args = await parseCommand(argv, portalLinkHelp, 'herald webhooks portal-link', []);
  if (!args) return ExitCode.ok;
  const json = booleanFlag(args, 'json');
  const body = portalLinkRequest({ org: stringFlag(args, 'org'), expires: stringFlag(args, 'expires') });
  const instance = activeInstance(openConfigStore());
  const { data } = await withProgress('Making a portal link', () => callApi(instance, { method: 'POST', endpoint: '/api/v0.9/portal-links', body }), json);
  const link = data as PortalLink;
  const url = absoluteLink(link.url, instance.url);
  if (json) {
    await writeOut(`${JSON.stringify({ ...link, url }, null, 2)}\n`);
  } else {
    await writeOut(`${url}\n`);
    process.stderr.write(`Single use, for organization ${link.orgId}; it can be opened until ${link.expiresAt}.\n`);
  }
  return ExitCode.ok;
}
