import { describe, expect, it } from 'vitest';
import { parseArgs, type FlagSpec } from '../src/args/parse.js';
import { CliError } from '../src/errors.js';
import { renderHelp } from '../src/args/help.js';

const specs: FlagSpec[] = [
  { name: 'method', short: 'X', kind: 'string', description: 'm' },
  { name: 'field', short: 'F', kind: 'repeatable', description: 'f' },
  { name: 'include', short: 'i', kind: 'boolean', description: 'i' },
  { name: 'silent', short: 's', kind: 'boolean', description: 's' },
];

function errorOf(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
  }
  throw new Error('expected a CliError');
}

describe('parseArgs', () => {
  it('reads long, long=value, short, attached short values and repeatables in order', () => {
    const args = parseArgs(['/orgs', '--method', 'PUT', '-Fa=1', '--field=b=2', '-F', 'c=3', '-i'], specs);
    expect(args.positionals).toStrictEqual(['/orgs']);
    expect(args.flags).toStrictEqual({ method: 'PUT', field: ['a=1', 'b=2', 'c=3'], include: true });
  });

  it('combines boolean short flags and ends flags at --', () => {
    const args = parseArgs(['-is', '--', '-X', '--nope'], specs);
    expect(args.flags).toStrictEqual({ include: true, silent: true });
    expect(args.positionals).toStrictEqual(['-X', '--nope']);
  });

  it('takes a value that starts with a dash as the value of a string flag', () => {
    expect(parseArgs(['-F', '-1'], specs).flags.field).toStrictEqual(['-1']);
  });

  it('rejects unknown flags with a code, the exit code for usage errors and the hint', () => {
    const error = errorOf(() => parseArgs(['--nope'], specs, 'hint'));
    expect([error.code, error.message, error.exitCode, error.hint]).toStrictEqual(['UNKNOWN_FLAG', 'unknown flag --nope', 2, 'hint']);
    expect(errorOf(() => parseArgs(['-iz'], specs)).message).toBe('unknown flag -z');
  });

  it('rejects a missing value and a value given to a boolean', () => {
    expect(errorOf(() => parseArgs(['--method'], specs)).code).toBe('FLAG_NEEDS_VALUE');
    expect(errorOf(() => parseArgs(['--include=yes'], specs)).code).toBe('FLAG_TAKES_NO_VALUE');
  });

  it('names the flag as it was written in each error', () => {
    expect(errorOf(() => parseArgs(['-iX'], specs)).message).toBe('flag -X needs a value');
    expect(errorOf(() => parseArgs(['--method'], specs)).message).toBe('flag --method needs a value');
    expect(errorOf(() => parseArgs(['--include=yes'], specs)).message).toBe('flag --include does not take a value');
    expect(errorOf(() => parseArgs(['--nope=1'], specs)).message).toBe('unknown flag --nope');
  });

  it('takes a string value attached to a short flag at the end of a group, and -- as a value', () => {
    expect(parseArgs(['-iXPOST'], specs).flags).toStrictEqual({ include: true, method: 'POST' });
    expect(parseArgs(['-X', '--', 'x'], specs)).toMatchObject({ flags: { method: '--' }, positionals: ['x'] });
  });

  it('reads a dash inside a group as an unknown flag, not as the end of the flags', () => {
    expect(errorOf(() => parseArgs(['-i-', '--method'], specs)).message).toBe('unknown flag --');
  });

  it('does not take an undeclared short flag for a long flag of that letter', () => {
    expect(errorOf(() => parseArgs(['-x'], [{ name: 'x', kind: 'boolean', description: 'x' }])).message).toBe('unknown flag -x');
  });
});

describe('renderHelp', () => {
  it('lists usage, flags with their short forms and examples', () => {
    const text = renderHelp({ usage: 'herald x', summary: 'Does x.', flags: specs, examples: ['herald x -i'] });
    expect(text).toContain('USAGE\n  herald x');
    expect(text).toMatch(/-X, --method string\s+m/);
    expect(text).toContain('EXAMPLES\n  herald x -i');
  });
});

describe('occurrences', () => {
  it('keeps repeatable values of different flags in command-line order', () => {
    const args = parseArgs(['-F', 'a=1', '--raw-field', 'b=2', '-Fc=3', '-X', 'POST'], [...specs, { name: 'raw-field', short: 'f', kind: 'repeatable', description: 'r' }]);
    expect(args.occurrences).toStrictEqual([
      { name: 'field', value: 'a=1' },
      { name: 'raw-field', value: 'b=2' },
      { name: 'field', value: 'c=3' },
    ]);
  });
});
