// Everything a command needs from the environment, gathered in one place (the imperative shell).
import { homedir } from 'node:os';
import { configDirectory } from './config/paths.js';
import { ConfigStore } from './config/store.js';
import { resolveActiveInstance, type ActiveInstance } from './config/instance.js';
import { VERSION } from './version.js';

export const userAgent = `herald-cli/${VERSION}`;

export function openConfigStore(): ConfigStore {
  return new ConfigStore(configDirectory(process.env, homedir()));
}

export function activeInstance(store: ConfigStore): ActiveInstance {
  return resolveActiveInstance(process.env, store.readConfig(), store.readCredentials());
}

/** Values that must never be printed, for redaction in --verbose and --dry-run. */
export function knownSecrets(instance: ActiveInstance | undefined): string[] {
  return [instance?.token, process.env.HERALD_TOKEN].filter((value): value is string => typeof value === 'string' && value.length > 0);
}
