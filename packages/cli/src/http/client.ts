// JSON calls for the dedicated commands (login, org, webhooks): same resolution and auth as
// `herald api`, but errors become CliErrors carrying the server's code and message.
import { resolveEndpointUrl, withQuery, type RequestUrl } from './endpoint.js';
import { requireToken, type ActiveInstance } from '../config/instance.js';
import { CliError, ExitCode } from '../errors.js';
import { userAgent } from '../context.js';
import { sendHttpRequest, type HttpHeader, type HttpResponse } from './send.js';

export interface ApiCall {
  readonly method: string;
  readonly endpoint: string;
  readonly query?: readonly (readonly [string, string])[];
  readonly body?: unknown;
  /** The body as JSON text already, for data that must reach the server exactly as written. */
  readonly jsonText?: string;
  readonly headers?: readonly HttpHeader[];
}

export interface ApiResult {
  readonly response: HttpResponse;
  /** Parsed JSON body; undefined for an empty body (e.g. 204). */
  readonly data: unknown;
}

interface ErrorBody {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly errors?: unknown;
}

/** Turns `{"status":"error","code","message","errors"}` or the legacy `{"message"}` into one line plus details. */
export function describeHttpError(statusCode: number, body: Buffer): string {
  let parsed: ErrorBody | undefined;
  try {
    parsed = JSON.parse(body.toString('utf8')) as ErrorBody;
  } catch {
    parsed = undefined;
  }
  const code = typeof parsed?.code === 'string' ? ` ${parsed.code}` : '';
  const message = typeof parsed?.message === 'string' ? parsed.message : body.toString('utf8').slice(0, 200).trim();
  const lines = [`HTTP ${statusCode}${code}${message ? `: ${message}` : ''}`];
  if (Array.isArray(parsed?.errors)) {
    for (const detail of parsed.errors as unknown[]) {
      const item = detail as { field?: unknown; message?: unknown };
      lines.push(`  ${typeof item.field === 'string' ? `${item.field}: ` : ''}${typeof item.message === 'string' ? item.message : JSON.stringify(detail)}`);
    }
  }
  return lines.join('\n');
}

/** The request as every JSON call sends it; the response as received, whatever its status. */
async function sendApiCall(instanceUrl: string, token: string, call: ApiCall): Promise<{ response: HttpResponse; url: RequestUrl }> {
  // Endpoints here are built by commands, ids encoded with encodePathSegment: no segment navigates.
  const url = withQuery(resolveEndpointUrl(instanceUrl, call.endpoint, { dotSegments: 'literal' }), call.query ?? []);
  const headers: HttpHeader[] = [
    ['Accept', 'application/json'],
    ['User-Agent', userAgent],
    ['Authorization', `Bearer ${token}`],
    ...(call.headers ?? []),
  ];
  const text = call.jsonText ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  let body: Uint8Array | undefined;
  if (text !== undefined) {
    headers.push(['Content-Type', 'application/json']);
    body = Buffer.from(text, 'utf8');
  }
  return { response: await sendHttpRequest({ method: call.method, url, headers, body }), url };
}

/** For commands that read an error answer themselves (e.g. to tell which events of a batch it names). */
export async function sendApiRequest(instance: ActiveInstance, call: ApiCall): Promise<HttpResponse> {
  return (await sendApiCall(instance.url, requireToken(instance), call)).response;
}

export async function callApiWithToken(instanceUrl: string, token: string, call: ApiCall): Promise<ApiResult> {
  const { response, url } = await sendApiCall(instanceUrl, token, call);
  if (response.statusCode >= 400) {
    throw new CliError(`HTTP_${response.statusCode}`, describeHttpError(response.statusCode, response.body), ExitCode.failed);
  }
  const responseText = response.body.toString('utf8');
  let data: unknown;
  if (responseText.trim() !== '') {
    try {
      data = JSON.parse(responseText);
    } catch {
      throw new CliError('NOT_JSON', `expected JSON from ${url.pathname}, got: ${responseText.slice(0, 80)}`, ExitCode.failed);
    }
  }
  return { response, data };
}

export function callApi(instance: ActiveInstance, call: ApiCall): Promise<ApiResult> {
  return callApiWithToken(instance.url, requireToken(instance), call);
}
