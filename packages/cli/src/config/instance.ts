// Which instance and token a command uses, and the values placeholders start from. Pure.
import { CliError, ExitCode } from '../errors.js';
import { normalizeInstanceUrl, type ConfigFile, type CredentialsFile } from './schema.js';

export interface InstanceEnvironment {
  readonly HERALD_URL?: string | undefined;
  readonly HERALD_TOKEN?: string | undefined;
}

export interface ActiveInstance {
  readonly url: string;
  readonly token: string | undefined;
}

/** HERALD_URL over `current_instance`; HERALD_TOKEN over the stored token of that instance. */
export function resolveActiveInstance(env: InstanceEnvironment, config: ConfigFile, credentials: CredentialsFile): ActiveInstance {
  const configured = env.HERALD_URL || config.current_instance;
  if (!configured) {
    throw new CliError('NO_INSTANCE', "no Herald instance: run 'herald login --url URL' or set HERALD_URL", ExitCode.config);
  }
  const url = normalizeInstanceUrl(configured);
  const token = env.HERALD_TOKEN || credentials.tokens?.[url];
  return { url, token: token || undefined };
}

export function requireToken(instance: ActiveInstance): string {
  if (instance.token === undefined) {
    throw new CliError('NOT_LOGGED_IN', `not logged in to ${instance.url}: run 'herald login --url ${instance.url}' or set HERALD_TOKEN`, ExitCode.config);
  }
  return instance.token;
}
