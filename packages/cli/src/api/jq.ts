// --jq: a real jq (jq compiled to WebAssembly, shipped inside the jq-wasm npm package), loaded only
// when --jq is used so `herald api` stays fast otherwise.
import { CliError, ExitCode } from '../errors.js';

/** jq's own messages, without the `jq: error: ` / `jq: error (at <input>): ` lead. */
function jqMessage(error: unknown): string {
  const first = (error as Error).message.split('\n')[0] ?? 'jq failed';
  return first.replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/^jq: /, '');
}

/**
 * Compiles the filter without running it, so a mistake is reported before any request is sent.
 * Binding a variable over `empty` makes jq compile what follows (the filter verbatim, up to the end,
 * so its errors read as they would on their own) yet never evaluate it.
 */
export async function checkJqFilter(filter: string): Promise<void> {
  const jq = await import('jq-wasm');
  try {
    await jq.raw('null', `empty as $__herald_unused | ${filter}`, ['-n']);
  } catch (error) {
    throw new CliError('JQ_INVALID', `--jq: ${jqMessage(error)}`, ExitCode.usage);
  }
}

/**
 * Runs the filter; strings print raw and other values as compact JSON, one result per line.
 * The request has been answered by now, so a filter failing on the data (`.a.b` on a string) is a
 * failed command (exit 1), not a usage error.
 */
export async function runJq(jsonText: string, filter: string): Promise<string> {
  const jq = await import('jq-wasm');
  try {
    const output = await jq.raw(jsonText, filter, ['-r', '-c']);
    return output === '' ? '' : `${output}\n`;
  } catch (error) {
    throw new CliError('JQ_ERROR', `--jq: ${jqMessage(error)}`, ExitCode.failed);
  }
}
