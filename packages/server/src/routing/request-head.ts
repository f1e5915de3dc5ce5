// Checks of a request's head that no route schema can express (pure): what the API refuses before
// routing, whatever the route.

/**
 * The `charset` parameter of a Content-Type, lowercased and unquoted, if it has one. JSON is UTF-8
 * (RFC 8259 §8.1); a body declared in another charset would be read as UTF-8 anyway and stored
 * differently from what the client meant, so such a request is refused instead.
 */
export function contentTypeCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (equals === -1) continue;
    if (parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    return parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}

export function isAcceptedCharset(charset: string | undefined): boolean {
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** How many Host fields the raw header list carries (Node joins or drops repeats in `headers`). */
export function hostFieldCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === 'host') count += 1;
  }
  return count;
}
