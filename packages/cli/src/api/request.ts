// The request `herald api` will send, computed from flags without any I/O (spec area A, rules 4–6).
import { usageError } from '../errors.js';
import { buildJsonBody, buildQueryPairs, type TypedField } from './fields.js';
import { withQuery } from './endpoint.js';

export type Header = readonly [name: string, value: string];

export interface RequestBody {
  readonly bytes: Uint8Array;
  /** Where the body came from, for --dry-run: fields (inline JSON), a file path, or stdin ("-"). */
  readonly origin: { readonly kind: 'fields' } | { readonly kind: 'file'; readonly path: string };
}

export interface RequestPlan {
  readonly method: string;
  readonly url: URL;
  readonly headers: readonly Header[];
  readonly body: RequestBody | undefined;
}

export interface PlanInput {
  readonly url: URL;
  readonly explicitMethod: string | undefined;
  readonly fields: readonly TypedField[];
  readonly headerArgs: readonly string[];
  /** Raw body from --input, already read. */
  readonly input: { readonly bytes: Uint8Array; readonly path: string } | undefined;
  readonly token: string | undefined;
  readonly userAgent: string;
}

/** `Name: value` → [Name, value]. */
export function parseHeaderArg(arg: string): Header {
  const colon = arg.indexOf(':');
  const name = colon === -1 ? '' : arg.slice(0, colon).trim();
  if (!name || /\s/.test(name)) {
    throw usageError('MALFORMED_HEADER', `invalid header "${arg}": expected "Name: value"`);
  }
  return [name, arg.slice(colon + 1).trim()];
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

/** Hides credentials: Authorization values keep only their scheme; any known secret is masked anywhere. */
export function redactHeader([name, value]: Header, secrets: readonly string[]): Header {
  if (name.toLowerCase() === 'authorization' || name.toLowerCase() === 'proxy-authorization') {
    const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
    return [name, scheme ? `${scheme} ${redactedMark}` : redactedMark];
  }
  return [name, redactText(value, secrets)];
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

/** --dry-run: the request as a curl command, credentials redacted. */
export function renderCurl(plan: RequestPlan, secrets: readonly string[]): string {
  const parts = ['curl', '-X', plan.method, shellQuote(redactText(plan.url.href, secrets))];
  for (const header of plan.headers) {
    const [name, value] = redactHeader(header, secrets);
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (plan.body) {
    if (plan.body.origin.kind === 'file') {
      parts.push('--data-binary', shellQuote(`@${plan.body.origin.path}`));
    } else {
      parts.push('--data-binary', shellQuote(redactText(Buffer.from(plan.body.bytes).toString('utf8'), secrets)));
    }
  }
  return parts.join(' ');
}
