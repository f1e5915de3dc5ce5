// The request `herald api` will send, computed from flags without any I/O (spec area A, rules 4–6).
import { usageError } from '../errors.js';
import { buildJsonBody, buildQueryPairs, type TypedField } from './fields.js';
import { withQuery, type RequestUrl } from '../http/endpoint.js';

export type Header = readonly [name: string, value: string];

export interface RequestBody {
  readonly bytes: Uint8Array;
  /** Where the body came from, for --dry-run: fields (inline JSON), a file path, or stdin ("-"). */
  readonly origin: { readonly kind: 'fields' } | { readonly kind: 'file'; readonly path: string };
}

export interface RequestPlan {
  readonly method: string;
  readonly url: RequestUrl;
  readonly headers: readonly Header[];
  readonly body: RequestBody | undefined;
}

export interface PlanInput {
  readonly url: RequestUrl;
  readonly explicitMethod: string | undefined;
  readonly fields: readonly TypedField[];
  readonly headerArgs: readonly string[];
  /** Raw body from --input, already read. */
  readonly input: { readonly bytes: Uint8Array; readonly path: string } | undefined;
  readonly token: string | undefined;
  readonly userAgent: string;
}

/** RFC 9110 token characters, the only ones a header name may have. */
const tokenCharacter = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const controlCharacter = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * Why a header value cannot be sent, if it cannot: a line break would end the header (or smuggle in
 * another), and Node sends header text as Latin-1, refusing anything beyond U+00FF.
 */
export function headerValueProblem(value: string): string | undefined {
  if (controlCharacter.test(value)) return 'control characters are not allowed in a header';
  const wide = /[\u0100-\u{10ffff}]/u.exec(value)?.[0];
  return wide === undefined ? undefined : `${JSON.stringify(wide)} cannot be sent in a header value (ASCII and Latin-1 only)`;
}

/** `Name: value` → [Name, value]; anything Node would refuse to send is a usage error here. */
export function parseHeaderArg(arg: string): Header {
  const colon = arg.indexOf(':');
  const name = colon === -1 ? '' : arg.slice(0, colon).trim();
  // The message shows the argument as --verbose would: a credential's value never appears.
  const shown = colon === -1 ? arg : redactHeader([arg.slice(0, colon).trim(), arg.slice(colon + 1).trim()], []).join(': ');
  const invalid = (reason: string) => usageError('MALFORMED_HEADER', `invalid header ${JSON.stringify(shown)}: ${reason}`);
  if (!name || /\s/.test(name)) throw invalid('expected "Name: value"');
  if (controlCharacter.test(arg)) throw invalid('control characters are not allowed in a header');
  const badNameCharacter = [...name].find((character) => !tokenCharacter.test(character));
  if (badNameCharacter !== undefined) throw invalid(`${JSON.stringify(badNameCharacter)} is not allowed in a header name`);
  const value = arg.slice(colon + 1).trim();
  const problem = headerValueProblem(value);
  if (problem !== undefined) throw invalid(problem);
  return [name, value];
}

export function hasHeader(headers: readonly Header[], name: string): boolean {
  const lower = name.toLowerCase();
  return headers.some(([headerName]) => headerName.toLowerCase() === lower);
}

/** Rule 1 of the method flag: GET, or POST when fields or a body are supplied and no method is given. */
export function chooseMethod(explicitMethod: string | undefined, hasFields: boolean, hasInput: boolean): string {
  if (explicitMethod !== undefined) {
    if (!/^[A-Za-z]+$/.test(explicitMethod)) throw usageError('INVALID_METHOD', `invalid method "${explicitMethod}"`);
    return explicitMethod.toUpperCase();
  }
  return hasFields || hasInput ? 'POST' : 'GET';
}

export function planRequest(input: PlanInput): RequestPlan {
  const method = chooseMethod(input.explicitMethod, input.fields.length > 0, input.input !== undefined);
  const userHeaders = input.headerArgs.map(parseHeaderArg);

  // Fields go to the query for GET (and whenever --input already supplies the body, as gh does).
  const fieldsInQuery = method === 'GET' || method === 'HEAD' || input.input !== undefined;
  const url = fieldsInQuery ? withQuery(input.url, buildQueryPairs(input.fields)) : input.url;

  let body: RequestBody | undefined;
  if (input.input) {
    body = { bytes: input.input.bytes, origin: { kind: 'file', path: input.input.path } };
  } else if (!fieldsInQuery && input.fields.length > 0) {
    body = { bytes: Buffer.from(JSON.stringify(buildJsonBody(input.fields)), 'utf8'), origin: { kind: 'fields' } };
  }

  const defaults: Header[] = [];
  if (!hasHeader(userHeaders, 'accept')) defaults.push(['Accept', 'application/json']);
  if (body && !hasHeader(userHeaders, 'content-type')) defaults.push(['Content-Type', 'application/json']);
  if (!hasHeader(userHeaders, 'user-agent')) defaults.push(['User-Agent', input.userAgent]);
  // Rule 6: a supplied Authorization header (any case) replaces the instance token.
  if (input.token !== undefined && !hasHeader(userHeaders, 'authorization')) defaults.push(['Authorization', `Bearer ${input.token}`]);

  return { method, url, headers: [...defaults, ...userHeaders], body };
}

const redactedMark = '***';

/** Headers whose values are credentials whatever they hold. */
const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token']);

/** Hides credentials: an authorization value keeps only its scheme; any known secret is masked anywhere. */
export function redactHeader([name, value]: Header, secrets: readonly string[]): Header {
  const lower = name.trim().toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const scheme = /^\s*([A-Za-z][\w.+-]*)\s+\S/.exec(value)?.[1];
    return [name, scheme ? `${scheme} ${redactedMark}` : redactedMark];
  }
  if (credentialHeaders.has(lower)) return [name, redactedMark];
  return [name, redactText(value, secrets)];
}

/** Body fields whose values --dry-run masks unless --show-secrets: the names credentials go by. */
const secretFieldName = /secret|token|password|passphrase|api[_-]?key|credential/i;

/** A JSON value with every secret-named field's value replaced by the mark, at any depth. */
export function redactSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecretFields);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    Object.defineProperty(result, key, { value: secretFieldName.test(key) ? redactedMark : redactSecretFields(inner), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) result = result.split(secret).join(redactedMark);
  }
  return result;
}

/** POSIX shell single-quoting. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * --dry-run: the request as a curl command, credentials redacted: headers always, secret-named
 * fields of a body built from -f/-F unless `showSecretFields` (--show-secrets).
 */
export function renderCurl(plan: RequestPlan, secrets: readonly string[], showSecretFields = false): string {
  const parts = ['curl', '-X', plan.method, shellQuote(redactText(plan.url.href, secrets))];
  for (const header of plan.headers) {
    const [name, value] = redactHeader(header, secrets);
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (plan.body) {
    if (plan.body.origin.kind === 'file') {
      parts.push('--data-binary', shellQuote(`@${plan.body.origin.path}`));
    } else {
      const text = Buffer.from(plan.body.bytes).toString('utf8');
      const shown = showSecretFields ? text : JSON.stringify(redactSecretFields(JSON.parse(text)));
      parts.push('--data-binary', shellQuote(redactText(shown, secrets)));
    }
  }
  return parts.join(' ');
}
