// Process I/O used by commands: stdin (read at most once), files, and flushed stdout writes.
import { readFileSync } from 'node:fs';
import { CliError, ExitCode } from './errors.js';

let stdinContents: Promise<Buffer> | undefined;

/** Standard input as bytes; `@-` and `--input -` in one command share the same contents. */
export function readStdin(): Promise<Buffer> {
  stdinContents ??= new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
  return stdinContents;
}

/** A file's bytes; `-` means standard input. A missing file is an input error naming the path. */
export async function readFileOrStdin(path: string, purpose: string): Promise<Buffer> {
  if (path === '-') return readStdin();
  if (path === '') throw new CliError('INPUT_UNREADABLE', `${purpose}: missing file name`, ExitCode.input);
  try {
    return readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CliError('INPUT_UNREADABLE', `${purpose}: cannot read "${path}": ${reason}`, ExitCode.input);
  }
}

/** Resolves once the chunk is handed to the OS, so a following exit cannot cut output short. */
export function writeOut(chunk: Uint8Array | string, stream: NodeJS.WritableStream = process.stdout): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

export function writeErrorLine(line: string): void {
  process.stderr.write(`${line}\n`);
}
