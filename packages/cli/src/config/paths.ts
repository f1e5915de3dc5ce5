// Where configuration lives. Pure: the environment and home directory are passed in.
import { join } from 'node:path';

export interface ConfigEnvironment {
  readonly HERALD_CONFIG_DIR?: string | undefined;
  readonly XDG_CONFIG_HOME?: string | undefined;
}

/** HERALD_CONFIG_DIR, else $XDG_CONFIG_HOME/herald, else ~/.config/herald. */
export function configDirectory(env: ConfigEnvironment, homeDirectory: string): string {
  if (env.HERALD_CONFIG_DIR) return env.HERALD_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'herald');
  return join(homeDirectory, '.config', 'herald');
}

export const configFileName = 'config.json';
/** Tokens live apart from settings so the settings file can be shared or printed safely. */
export const credentialsFileName = 'credentials.json';
export const linkFileName = '.herald.json';
