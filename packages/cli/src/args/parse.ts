// A strict command-line parser: every flag must be declared, so a typo is an error before anything
// is sent. Node's parseArgs splits argv into tokens; this checks them against the flag specs. Pure:
// argv in, parsed flags out (or a CliError).
import { parseArgs as tokenize, type ParseArgsOptionsConfig } from 'node:util';
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

type Token = NonNullable<ReturnType<typeof tokenize>['tokens']>[number];
type OptionToken = Extract<Token, { kind: 'option' }>;

/** Node reads every declared flag's kind and short form from here; what is undeclared it passes on as a token. */
function nodeOptions(specs: readonly FlagSpec[]): ParseArgsOptionsConfig {
  return Object.fromEntries(
    specs.map((spec) => [spec.name, { type: spec.kind === 'boolean' ? 'boolean' : 'string', ...(spec.short === undefined ? {} : { short: spec.short }) }]),
  );
}

/** Matched on the flag as written, so an undeclared `-z` is not taken for a declared `--z`. */
function specOf(specs: readonly FlagSpec[], token: OptionToken): FlagSpec | undefined {
  return specs.find((spec) => token.rawName === `--${spec.name}` || (spec.short !== undefined && token.rawName === `-${spec.short}`));
}

/**
 * Parses argv (without the command words). Accepts `--name value`, `--name=value`, `-x value`,
 * `-xvalue` (string flags), grouped booleans `-ab`, and `--` to end flag parsing. A string flag
 * takes the next argument as its value even when it starts with a dash (`-F -1`).
 */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[], hint?: string): ParsedArgs {
  // Not strict: node's own errors would name flags in its words; each token is checked here instead.
  const { tokens } = tokenize({ args: [...argv], options: nodeOptions(specs), strict: false, allowPositionals: true, tokens: true });
  const flags: Record<string, FlagValue> = {};
  const positionals: string[] = [];
  const occurrences: { name: string; value: string }[] = [];

  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') {
      // Node also ends the flags at a dash inside a group (`-i-`); only a `--` of its own does here.
      if (argv[token.index] !== '--') throw usageError('UNKNOWN_FLAG', 'unknown flag --', hint);
      continue;
    }
    const spec = specOf(specs, token);
    if (!spec) throw usageError('UNKNOWN_FLAG', `unknown flag ${token.rawName}`, hint);
    if (spec.kind === 'boolean') {
      if (token.value !== undefined) throw usageError('FLAG_TAKES_NO_VALUE', `flag ${token.rawName} does not take a value`, hint);
      flags[spec.name] = true;
    } else if (token.value === undefined) {
      throw usageError('FLAG_NEEDS_VALUE', `flag ${token.rawName} needs a value`, hint);
    } else if (spec.kind === 'repeatable') {
      const previous = flags[spec.name];
      flags[spec.name] = Array.isArray(previous) ? [...previous, token.value] : [token.value];
      occurrences.push({ name: spec.name, value: token.value });
    } else {
      flags[spec.name] = token.value;
    }
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
