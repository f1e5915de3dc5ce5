// Renders a command's help from its flag specs, so help and parser never disagree. Pure.
import type { FlagSpec } from './parse.js';

export interface CommandHelp {
  readonly usage: string;
  readonly summary: string;
  readonly description?: string;
  readonly flags: readonly FlagSpec[];
  readonly examples: readonly string[];
  readonly subcommands?: readonly (readonly [name: string, summary: string])[];
}

function flagLabel(spec: FlagSpec): string {
  const short = spec.short ? `-${spec.short}, ` : '    ';
  const value = spec.kind === 'boolean' ? '' : ` ${spec.valueName ?? 'string'}`;
  return `${short}--${spec.name}${value}`;
}

export function renderHelp(help: CommandHelp): string {
  const lines = [help.summary, '', 'USAGE', `  ${help.usage}`];
  if (help.description) lines.push('', ...help.description.split('\n').map((line) => (line ? `  ${line}` : '')));
  if (help.subcommands?.length) {
    const width = Math.max(...help.subcommands.map(([name]) => name.length));
    lines.push('', 'COMMANDS', ...help.subcommands.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`));
  }
  if (help.flags.length) {
    const labels = help.flags.map(flagLabel);
    const width = Math.max(...labels.map((label) => label.length));
    lines.push('', 'FLAGS', ...help.flags.map((spec, index) => `  ${(labels[index] as string).padEnd(width)}  ${spec.description}`));
  }
  if (help.examples.length) lines.push('', 'EXAMPLES', ...help.examples.map((example) => `  ${example}`));
  return `${lines.join('\n')}\n`;
}

export const helpFlag: FlagSpec = { name: 'help', short: 'h', kind: 'boolean', description: 'Show help for the command' };
export const orgFlag: FlagSpec = { name: 'org', kind: 'string', valueName: 'org', description: 'Organization; overrides the linked one and current_org' };

export function usageHint(commandPath: string): string {
  return `Run '${commandPath} --help' for usage.`;
}
