// Builds the validated HostConfig from defaults ← JSON config file ← HERALD_* environment.
// Every problem is reported at once, named by the environment variable or file field that set it.
import { createPublicKey } from 'node:crypto';
import { parseEgressProxyUrl, schemas } from '@herald/core';
import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { toFieldIssues } from '../validation/field-issues.js';
import { configFromEnv, ENV_NAMES, type RawConfig } from './env.js';
import { HostConfigError } from './errors.js';
import { eventTypeProblems } from './event-types.js';
import { HostConfig } from './schema.js';
import { readSeedTokensFile } from './seed-tokens.js';

export { HostConfigError };

export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  /** `--config` path; falls back to HERALD_CONFIG. */
  configFile?: string;
  /** Last-word overrides (tests, CLI flags). */
  overrides?: RawConfig;
}

const checkHostConfig = Compile(HostConfig);

function readConfigFile(path: string): RawConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HostConfigError([`cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`]);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as RawConfig;
  } catch {
    throw new HostConfigError([`config file ${path} is not a JSON object`]);
  }
}

function isPlainObject(value: unknown): value is RawConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Shallow merge, except `jwt` whose fields merge one level deeper (env can set just the audience). */
function merge(base: RawConfig, top: RawConfig): RawConfig {
  const merged: RawConfig = { ...base, ...top };
  if (isPlainObject(base.jwt) && isPlainObject(top.jwt)) merged.jwt = { ...base.jwt, ...top.jwt };
  return merged;
}

function describeField(field: string, fromEnv: RawConfig): string {
  const topLevel = field.split('.')[0] ?? field;
  const envName = ENV_NAMES[field] ?? ENV_NAMES[topLevel];
  if (envName && (field in fromEnv || topLevel in fromEnv)) return `${envName} (${field})`;
  return field || '(root)';
}

function isPublicKeyPem(pem: string): boolean {
  try {
    return createPublicKey(pem).type === 'public';
  } catch {
    return false;
  }
}

/**
 * Checks that the schema cannot express: key sizes, the current key's presence, one JWT key source,
 * the request timeouts' order, the event catalog's schemas and examples.
 */
function semanticProblems(config: HostConfig, fromEnv: RawConfig): string[] {
  const problems: string[] = [];
  problems.push(...egressProxyProblems(config, fromEnv));
  if (config.masterKeys) {
    for (const [id, key] of Object.entries(config.masterKeys.keys)) {
      if (Buffer.from(key, 'base64').length !== 32) problems.push(`masterKeys.keys.${id}: must be base64 of exactly 32 bytes`);
    }
    if (!(config.masterKeys.current in config.masterKeys.keys)) {
      problems.push(`masterKeys.current: key id "${config.masterKeys.current}" is not among the configured keys`);
    }
  }
  if (config.jwt && !config.jwt.jwksUrl === !config.jwt.publicKeyPem) {
    problems.push('jwt: set exactly one of jwksUrl (HERALD_JWT_JWKS_URL) or publicKeyPem (HERALD_JWT_PUBLIC_KEY[_FILE])');
  }
  if (config.jwt?.publicKeyPem && !isPublicKeyPem(config.jwt.publicKeyPem)) {
    problems.push('jwt.publicKeyPem (HERALD_JWT_PUBLIC_KEY): not a PEM-encoded public key');
  }
  if (config.publicBaseUrl && !/^https?:\/\//.test(config.publicBaseUrl)) problems.push('publicBaseUrl: must be an http(s) URL');
  // Node refuses a headers timeout longer than the request timeout.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(`headersTimeoutMs (HERALD_HEADERS_TIMEOUT): must be at most requestTimeoutMs (HERALD_REQUEST_TIMEOUT), ${config.requestTimeoutMs}`);
  }
  // CSP reads 'none' beside other sources as a policy error, so browsers would ignore the directive.
  if (config.portalFrameAncestors.includes("'none'") && config.portalFrameAncestors.length > 1) {
    problems.push("portalFrameAncestors (HERALD_PORTAL_FRAME_ANCESTORS): 'none' must stand alone");
  }
  problems.push(...eventTypeProblems(config));
  return problems;
}

const PROXY_NAME = new RegExp(schemas.EGRESS_PROXY_NAME_PATTERN);

/** The proxies' names and URLs; a problem names the setting, never the URL (it may hold a password). */
function egressProxyProblems(config: HostConfig, fromEnv: RawConfig): string[] {
  const problems: string[] = [];
  const check = (url: string, setting: string): void => {
    try {
      parseEgressProxyUrl(url, setting, 'check');
    } catch (error) {
      problems.push((error as Error).message);
    }
  };
  if (config.egressProxy !== undefined) check(config.egressProxy, describeField('egressProxy', fromEnv));
  const named = describeField('egressProxies', fromEnv);
  for (const [name, url] of Object.entries(config.egressProxies ?? {})) {
    if (!PROXY_NAME.test(name) || name === 'none' || name === 'default') {
      problems.push(`${named}: "${name}" is not a proxy name (1–63 of a-z, 0-9, "-", not starting or ending with "-"; "none" and "default" are reserved)`);
    } else check(url, `${named} "${name}"`);
  }
  return problems;
}

/** How problems name the seed-tokens file: by the variable or field that set it, and its path. */
export function seedTokensSource(path: string, fromEnv: RawConfig = {}): string {
  return `${'seedTokensFile' in fromEnv ? 'HERALD_SEED_TOKENS_FILE' : 'seedTokensFile'} ${path}`;
}

export function loadConfig(options: LoadConfigOptions = {}): HostConfig {
  const env = options.env ?? process.env;
  const fromEnv = configFromEnv(env, (path) => readFileSync(path, 'utf8'));
  const configFile = options.configFile ?? env.HERALD_CONFIG;
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const raw = merge(merge(fromFile, fromEnv), options.overrides ?? {});
  if (raw.mongodbUri === undefined) {
    throw new HostConfigError(['mongodbUri is required: set HERALD_MONGODB_URI (or MONGODB_URI) or "mongodbUri" in the config file']);
  }
  const withDefaults = Value.Default(HostConfig, structuredClone(raw));
  if (!checkHostConfig.Check(withDefaults)) {
    const problems = toFieldIssues(checkHostConfig.Errors(withDefaults), '(root)').map(
      (issue) => `${describeField(issue.field, fromEnv)}: ${issue.message}`,
    );
    throw new HostConfigError([...new Set(problems)]);
  }
  const config = withDefaults as HostConfig;
  const problems = semanticProblems(config, fromEnv);
  if (config.seedTokensFile) {
    // Checked now so a bad file is a configuration error (exit 2) before anything connects; the
    // host reads it again when it starts, so the values are not kept in the config object.
    try {
      readSeedTokensFile(config.seedTokensFile, seedTokensSource(config.seedTokensFile, fromEnv));
    } catch (error) {
      if (!(error instanceof HostConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new HostConfigError(problems);
  return config;
}
