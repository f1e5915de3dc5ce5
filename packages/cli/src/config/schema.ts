// Shapes of the config, credentials and link files, and their validation. Pure.
import { CliError, ExitCode } from '../errors.js';

export interface InstanceEntry {
  readonly url: string;
}

export interface ConfigFile {
  readonly current_instance?: string;
  readonly current_org?: string;
  readonly instances?: Readonly<Record<string, InstanceEntry>>;
}

export interface CredentialsFile {
  readonly tokens?: Readonly<Record<string, string>>;
}

export interface LinkFile {
  readonly org?: string;
  readonly project?: string;
}

/** Keys `herald config get|set` accepts, with what they mean. */
export const settableConfigKeys: Readonly<Record<string, string>> = {
  current_org: 'active organization; fills {org} when neither --org nor a link names one',
  current_instance: 'URL of the instance commands talk to (see herald instance use)',
};

function corrupt(path: string, reason: string): CliError {
  return new CliError('CONFIG_CORRUPT', `${path} is corrupt: ${reason}; fix or delete it`, ExitCode.config);
}

function parseObject(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt(path, 'expected a JSON object');
  return value as Record<string, unknown>;
}

function optionalString(object: Record<string, unknown>, key: string, path: string): void {
  if (object[key] !== undefined && typeof object[key] !== 'string') throw corrupt(path, `"${key}" must be a string`);
}

function stringMap(object: Record<string, unknown>, key: string, path: string, check: (value: unknown) => boolean): void {
  const map = object[key];
  if (map === undefined) return;
  if (typeof map !== 'object' || map === null || Array.isArray(map) || !Object.values(map).every(check)) {
    throw corrupt(path, `"${key}" has an unexpected shape`);
  }
}

export function parseConfigFile(text: string, path: string): ConfigFile {
  const object = parseObject(text, path);
  optionalString(object, 'current_instance', path);
  optionalString(object, 'current_org', path);
  stringMap(object, 'instances', path, (entry) => typeof entry === 'object' && entry !== null && typeof (entry as InstanceEntry).url === 'string');
  return object as ConfigFile;
}

export function parseCredentialsFile(text: string, path: string): CredentialsFile {
  const object = parseObject(text, path);
  stringMap(object, 'tokens', path, (token) => typeof token === 'string');
  return object as CredentialsFile;
}

export function parseLinkFile(text: string, path: string): LinkFile {
  const object = parseObject(text, path);
  optionalString(object, 'org', path);
  optionalString(object, 'project', path);
  return object as LinkFile;
}

/** Accepts `http(s)://host[:port][/path]`; returns it without a trailing slash. */
export function normalizeInstanceUrl(text: string): string {
  const invalid = (why: string): CliError =>
    new CliError('INVALID_URL', `invalid instance URL "${text}": ${why} (expected e.g. https://herald.example.com)`, ExitCode.usage);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('only http and https are supported');
  if (url.username || url.password) throw invalid('credentials in the URL are not allowed');
  if (url.search || url.hash) throw invalid('no query or fragment allowed');
  return (url.origin + url.pathname).replace(/\/+$/, '');
}
