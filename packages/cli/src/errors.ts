// Every failure the CLI reports is a CliError: a stable code, a message meant for the user and the
// process exit code it maps to (documented in docs/cli.md). Messages never contain tokens.

/** Process exit codes, one per kind of failure, so scripts can tell them apart. */
export const ExitCode = {
  ok: 0,
  /** The server answered with HTTP status 400 or above (or a signature did not verify). */
  failed: 1,
  /** The command line is wrong: unknown flag, missing argument, malformed field, bad placeholder. */
  usage: 2,
  /** Configuration or credentials are missing, corrupt or rejected. */
  config: 3,
  /** A local file (for @path, --input, link file) cannot be read. */
  input: 4,
  /** The request could not be sent or no response arrived. */
  network: 5,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.usage,
    /** Extra line printed after the message, e.g. "Run 'herald api --help' for usage." */
    readonly hint?: string,
  ) {
    super(message);
  }
}

export function usageError(code: string, message: string, hint?: string): CliError {
  return new CliError(code, message, ExitCode.usage, hint);
}
