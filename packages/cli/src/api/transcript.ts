// Text around the body: the -i block on stdout and the --verbose transcript on stderr. Pure.
import type { HttpResponse } from '../http/send.js';
import { redactHeader, type RequestPlan } from './request.js';

export type ResponseHead = Pick<HttpResponse, 'httpVersion' | 'statusCode' | 'statusMessage' | 'headers'>;

export function statusLine(response: ResponseHead): string {
  return `HTTP/${response.httpVersion} ${response.statusCode} ${response.statusMessage}`.trimEnd();
}

/** `-i`: status line, headers as received (order and case), an empty line; the body follows. */
export function includeBlock(response: ResponseHead): string {
  const headerLines = response.headers.map(([name, value]) => `${name}: ${value}`);
  return `${[statusLine(response), ...headerLines].join('\n')}\n\n`;
}

/** `--verbose`, request side, curl-style `> ` lines with credentials redacted. */
export function verboseRequest(plan: RequestPlan, secrets: readonly string[]): string {
  const lines = [`> ${plan.method} ${plan.url.pathname}${plan.url.search} HTTP/1.1`, `> Host: ${plan.url.host}`];
  for (const header of plan.headers) lines.push(`> ${redactHeader(header, secrets).join(': ')}`);
  if (plan.body) lines.push(`> Content-Length: ${plan.body.bytes.byteLength}`);
  lines.push('>');
  return `${lines.join('\n')}\n`;
}

/** `--verbose`, response side, `< ` lines. */
export function verboseResponse(response: ResponseHead, secrets: readonly string[]): string {
  const lines = [`< ${statusLine(response)}`];
  for (const header of response.headers) lines.push(`< ${redactHeader(header, secrets).join(': ')}`);
  lines.push('<');
  return `${lines.join('\n')}\n`;
}
