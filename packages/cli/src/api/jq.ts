// --jq: a real jq (jq compiled to WebAssembly, shipped inside the jq-wasm npm package), loaded only
// when --jq is used so `herald api` stays fast otherwise.
import { CliError, ExitCode } from '../errors.js';

/** Runs the filter; strings print raw and other values as compact JSON, one result per line. */
export async function runJq(jsonText: string, filter: string): Promise<string> {
  const jq = await import('jq-wasm');
  try {
    const output = await jq.raw(jsonText, filter, ['-r', '-c']);
    return output === '' ? '' : `${output}\n`;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? 'jq failed';
    throw new CliError('JQ_ERROR', `--jq: ${message.replace(/^jq: (error: )?/, '')}`, ExitCode.usage);
  }
}
