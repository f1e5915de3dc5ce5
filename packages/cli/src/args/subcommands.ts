// Dispatch for command groups such as `herald instance list|use|remove`.
import { ExitCode, usageError } from '../errors.js';
import { writeOut } from '../io.js';
import { renderHelp, usageHint, type CommandHelp } from './help.js';
import { booleanFlag, parseArgs, type FlagSpec, type ParsedArgs } from './parse.js';

export type Runner = (argv: readonly string[]) => Promise<number>;

export async function runSubcommand(commandPath: string, argv: readonly string[], subcommands: Readonly<Record<string, Runner>>, groupHelp: string): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    await writeOut(groupHelp);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const runner = subcommands[name];
  if (!runner) {
    const what = name.startsWith('-') ? `unknown flag ${name}` : `unknown command "${name}" for "${commandPath}"`;
    throw usageError(name.startsWith('-') ? 'UNKNOWN_FLAG' : 'UNKNOWN_COMMAND', what, `Run '${commandPath} --help' for usage.`);
  }
  return runner(rest);
}

/** Checks the number of positional arguments. */
export function expectPositionals(positionals: readonly string[], names: readonly string[], commandPath: string): void {
  if (positionals.length < names.length) {
    throw usageError('MISSING_ARGUMENT', `missing <${names[positionals.length]}> argument`, `Run '${commandPath} --help' for usage.`);
  }
  if (positionals.length > names.length) {
    throw usageError('UNEXPECTED_ARGUMENT', `unexpected argument "${positionals[names.length]}"`, `Run '${commandPath} --help' for usage.`);
  }
}

/**
 * Parses a leaf command's arguments. With `--help` it prints the command's help and returns
 * undefined (the command then exits 0); otherwise it checks the positional arguments.
 */
export async function parseCommand(
  argv: readonly string[],
  help: CommandHelp,
  commandPath: string,
  positionals: readonly string[],
  flags: readonly FlagSpec[] = help.flags,
): Promise<ParsedArgs | undefined> {
  const args = parseArgs(argv, flags, usageHint(commandPath));
  if (booleanFlag(args, 'help')) {
    await writeOut(renderHelp(help));
    return undefined;
  }
  expectPositionals(args.positionals, positionals, commandPath);
  return args;
}
