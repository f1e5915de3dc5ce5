// Runs the built `herald` on a pseudo-terminal (util-linux `script`), so stdout and stderr are a TTY
// as in a person's shell; the transcript comes back without colours and cursor movements.
import { execFileSync, spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { heraldBin, type RunOptions } from './run-herald.js';

export const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export function runOnTerminal(args: readonly string[], options: RunOptions): Promise<{ code: number | null; transcript: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  // A pseudo-terminal without a parent terminal is 0 columns wide: give it a size first.
  const command = `stty cols 160 rows 40 && exec ${[process.execPath, heraldBin, ...args].map(quote).join(' ')}`;
  // CI makes Ink draw only the final frame; a person's terminal has no CI variable.
  const env = { PATH: process.env.PATH ?? '', HOME: options.cwd, HERALD_CONFIG_DIR: options.configDir, TERM: 'xterm-256color' };
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, transcript: stripVTControlCharacters(Buffer.concat(chunks).toString('utf8')) }));
  });
}
