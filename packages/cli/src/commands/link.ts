// `herald link` / `herald unlink`: a .herald.json in the working directory naming org and project.
import { booleanFlag, parseArgs, stringFlag, type FlagSpec } from '../args/parse.js';
import { helpFlag, renderHelp, usageHint, type CommandHelp } from '../args/help.js';
import { expectPositionals } from '../args/subcommands.js';
import { removeLinkFile, writeLinkFile } from '../config/store.js';
import type { LinkFile } from '../config/schema.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';

const linkFlags: readonly FlagSpec[] = [
  { name: 'org', kind: 'string', valueName: 'org', description: 'Organization to link' },
  { name: 'project', kind: 'string', valueName: 'project', description: 'Project to link' },
  helpFlag,
];

export const linkHelp: CommandHelp = {
  usage: 'herald link [--org <org>] [--project <project>]',
  summary: 'Link the working directory (and its subdirectories) to an organization and/or project.',
  description: 'Writes .herald.json here. Commands run in this directory or below fill {org} and {project}\nfrom it unless --org/--project are given.',
  flags: linkFlags,
  examples: ['herald link --org acme --project billing', 'herald link --project billing'],
};

export const unlinkHelp: CommandHelp = {
  usage: 'herald unlink',
  summary: 'Remove the .herald.json link of the working directory.',
  flags: [helpFlag],
  examples: ['herald unlink'],
};

export async function runLink(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, linkFlags, usageHint('herald link'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(linkHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald link');
  const org = stringFlag(args, 'org')?.trim();
  const project = stringFlag(args, 'project')?.trim();
  if (!org && !project) throw usageError('NOTHING_TO_LINK', 'pass --org and/or --project', usageHint('herald link'));
  const link: LinkFile = { ...(org ? { org } : {}), ...(project ? { project } : {}) };
  const path = writeLinkFile(process.cwd(), link);
  process.stderr.write(`Linked ${process.cwd()} (${path}).\n`);
  return ExitCode.ok;
}

export async function runUnlink(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, [helpFlag], usageHint('herald unlink'));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(unlinkHelp));
    return ExitCode.ok;
  }
  expectPositionals(args.positionals, [], 'herald unlink');
  if (!removeLinkFile(process.cwd())) throw new CliError('NOT_LINKED', `${process.cwd()} is not linked (no .herald.json here)`, ExitCode.config);
  process.stderr.write(`Unlinked ${process.cwd()}.\n`);
  return ExitCode.ok;
}
