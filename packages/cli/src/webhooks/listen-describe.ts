// Words for a local receiver that did not answer (pure).

export function describeNetworkFailure(error: unknown, url: string): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer from ${url} in time`;
  if (typeof cause?.code === 'string') {
    if (cause.code === 'ECONNREFUSED') return `connection refused by ${url} (is your receiver running?)`;
    return `${cause.code} from ${url}`;
  }
  // fetch's own refusals (e.g. "bad port" for ports browsers block) carry no code, only words.
  const reason = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return `${url} could not be reached: ${reason}`;
}
