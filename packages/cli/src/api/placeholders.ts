// Placeholders {org} and {project} in an endpoint (spec area A, rules 1–3). Pure.
import { usageError } from '../errors.js';
import { encodePathSegment } from '../http/endpoint.js';

export const supportedPlaceholders = ['{org}', '{project}'] as const;

/** Any `{word}` counts as a placeholder; only the supported ones may appear. */
const placeholderPattern = /\{[A-Za-z_][A-Za-z0-9_.-]*\}/g;

/** Rule 2: fails on the first unknown placeholder, before anything else happens. */
export function assertKnownPlaceholders(endpoint: string): void {
  for (const match of endpoint.matchAll(placeholderPattern)) {
    const token = match[0];
    if (!(supportedPlaceholders as readonly string[]).includes(token)) {
      throw usageError('UNKNOWN_PLACEHOLDER', `unknown placeholder ${token} (supported: {org}, {project})`);
    }
  }
}

export function usedPlaceholders(endpoint: string): Set<string> {
  return new Set(Array.from(endpoint.matchAll(placeholderPattern), (match) => match[0]));
}

/** One source of placeholder values; sources are consulted in precedence order. */
export interface PlaceholderSource {
  readonly org?: string | undefined;
  readonly project?: string | undefined;
}

export interface PlaceholderValues {
  readonly org: string | undefined;
  readonly project: string | undefined;
}

/**
 * Rule 1: flags, then the linked directory, then the active organization (`current_org`).
 * Each placeholder is resolved on its own: a link naming only a project still takes the org from config.
 * An empty string in a higher source counts as given (so `--org ""` is reported as empty, not skipped).
 */
export function resolvePlaceholderValues(flags: PlaceholderSource, link: PlaceholderSource, currentOrg: string | undefined): PlaceholderValues {
  return {
    org: flags.org ?? link.org ?? currentOrg,
    project: flags.project ?? link.project,
  };
}

const emptyHints: Record<string, string> = {
  '{org}': "pass --org, run 'herald link --org ORG' or 'herald org use ORG'",
  '{project}': "pass --project or run 'herald link --project PROJECT'",
};

function valuesByToken(values: PlaceholderValues): Record<string, string | undefined> {
  return { '{org}': values.org, '{project}': values.project };
}

/** Rule 3: every placeholder the endpoint uses has a value. */
export function assertPlaceholdersFilled(endpoint: string, values: PlaceholderValues): void {
  assertKnownPlaceholders(endpoint);
  const byToken = valuesByToken(values);
  for (const token of usedPlaceholders(endpoint)) {
    const value = byToken[token];
    if (value === undefined || value.trim() === '') {
      throw usageError('EMPTY_PLACEHOLDER', `${token} is empty: ${emptyHints[token]}`);
    }
  }
}

/** Rules 2 and 3: substitutes values, each encoded as one path segment ("." and ".." escaped too). */
export function fillPlaceholders(endpoint: string, values: PlaceholderValues): string {
  assertPlaceholdersFilled(endpoint, values);
  const byToken = valuesByToken(values);
  return endpoint.replace(placeholderPattern, (token) => encodePathSegment(byToken[token] as string));
}
