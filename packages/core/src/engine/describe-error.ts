// An error as a log line carries it: its code and message, never its stack or cause, which may hold
// a request's headers.
export function describeError(error: unknown): { code?: unknown; message: string } {
  if (error instanceof Error) return { code: (error as { code?: unknown }).code, message: error.message };
  return { message: String(error) };
}
