// Words for a local receiver that did not answer (pure).

export function describeNetworkFailure(error: unknown, url: string): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer from ${url} in time`;
  if (typeof cause?.code === 'string') {
    if (cause.code === 'ECONNREFUSED') return `connection refused by ${url} (is your receiver running?)`;
    return `${cause.code} from ${url}`;
  }
  return `${url} could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}
