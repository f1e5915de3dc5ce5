// A small, strict command-line parser: every flag must be declared, so a typo is an error before
// anything is sent. Pure: argv in, parsed flags out (or a CliError).
import { usageError } from '../errors.js';

export type FlagKind = 'boolean' | 'string' | 'repeatable';

export interface FlagSpec {
  /** Long name without dashes, e.g. "raw-field". */
  readonly name: string;
  /** One-letter alias without dash, e.g. "f". */
  readonly short?: string;
  readonly kind: FlagKind;
  /** Shown in help; for string flags also the value's placeholder. */
  readonly description: string;
  readonly valueName?: string;
}

export type FlagValue = boolean | string | string[];

export interface ParsedArgs {
  /** Keyed by long name. Repeatable flags are arrays in the order given. */
  readonly flags: Readonly<Record<string, FlagValue>>;
  readonly positionals: readonly string[];
  /** Every value of a repeatable flag in command-line order, across flags (e.g. -f and -F interleaved). */
  readonly occurrences: readonly { readonly name: string; readonly value: string }[];
}

function findLong(specs: readonly FlagSpec[], name: string): FlagSpec | undefined {
  return specs.find((spec) => spec.name === name);
}

function findShort(specs: readonly FlagSpec[], letter: string): FlagSpec | undefined {
  return specs.find((spec) => spec.short === letter);
}

function unknownFlag(flag: string, hint: string | undefined): never {
  throw usageError('UNKNOWN_FLAG', `unknown flag ${flag}`, hint);
}

/**
 * Parses argv (without the command words). Accepts `--name value`, `--name=value`, `-x value`,
 * `-xvalue` (string flags), grouped booleans `-ab`, and `--` to end flag parsing.
 */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[], hint?: string): ParsedArgs {
  const flags: Record<string, FlagValue> = {};
  const positionals: string[] = [];
  const occurrences: { name: string; value: string }[] = [];

  const store = (spec: FlagSpec, value: string | true, shownAs: string): void => {
    if (spec.kind === 'boolean') {
      if (value !== true) {
        throw usageError('FLAG_TAKES_NO_VALUE', `flag ${shownAs} does not take a value`, hint);
      }
      flags[spec.name] = true;
    } else if (value === true) {
      throw usageError('FLAG_NEEDS_VALUE', `flag ${shownAs} needs a value`, hint);
    } else if (spec.kind === 'repeatable') {
      const previous = flags[spec.name];
      flags[spec.name] = Array.isArray(previous) ? [...previous, value] : [value];
      occurrences.push({ name: spec.name, value });
    } else {
      flags[spec.name] = value;
    }
  };

  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    const takeNext = (shownAs: string): string => {
      const next = argv[index + 1];
      if (next === undefined) throw usageError('FLAG_NEEDS_VALUE', `flag ${shownAs} needs a value`, hint);
      index++;
      return next;
    };

    if (arg === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
      const spec = findLong(specs, name);
      if (!spec) unknownFlag(`--${name}`, hint);
      if (equals !== -1) store(spec, arg.slice(equals + 1), `--${name}`);
      else store(spec, spec.kind === 'boolean' ? true : takeNext(`--${name}`), `--${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // Group of short flags: booleans may be combined; a string flag consumes the rest or the next arg.
      for (let position = 1; position < arg.length; position++) {
        const letter = arg[position] as string;
        const spec = findShort(specs, letter);
        if (!spec) unknownFlag(`-${letter}`, hint);
        if (spec.kind === 'boolean') {
          store(spec, true, `-${letter}`);
          continue;
        }
        const rest = arg.slice(position + 1);
        store(spec, rest.length > 0 ? rest : takeNext(`-${letter}`), `-${letter}`);
        break;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { flags, positionals, occurrences };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanFlag(args: ParsedArgs, name: string): boolean {
  return args.flags[name] === true;
}

export function listFlag(args: ParsedArgs, name: string): readonly string[] {
  const value = args.flags[name];
  return Array.isArray(value) ? value : [];
}
