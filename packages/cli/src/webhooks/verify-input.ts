// Headers of a saved delivery, from `Name: value` lines (as printed by curl -v, a proxy log or a
// raw HTTP dump; a request line is skipped) or a JSON object. Pure.
import { CliError, ExitCode } from '../errors.js';

export type HeaderRecord = Record<string, string>;

export function parseSavedHeaders(text: string, source: string): HeaderRecord {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new CliError('INPUT_NOT_JSON', `${source} looks like JSON but does not parse`, ExitCode.input);
    }
    const headers: HeaderRecord = {};
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    return headers;
  }
  const headers: HeaderRecord = {};
  for (const line of trimmed.split(/\r?\n/)) {
    if (line.trim() === '' || /^[A-Z]+ \S+ HTTP\/\d/.test(line)) continue;
    addHeaderLine(headers, line, source);
  }
  return headers;
}

export function addHeaderLine(headers: HeaderRecord, line: string, source: string): void {
  const colon = line.indexOf(':');
  if (colon <= 0) throw new CliError('MALFORMED_HEADER', `${source}: invalid header line "${line}": expected "Name: value"`, ExitCode.usage);
  headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
}
