// Reading and writing the config directory and link files (the I/O edge of config).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from '../errors.js';
import { configFileName, credentialsFileName, linkFileName } from './paths.js';
import { parseConfigFile, parseCredentialsFile, parseLinkFile, type ConfigFile, type CredentialsFile, type LinkFile } from './schema.js';

function readOptionalText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError('CONFIG_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, ExitCode.config);
  }
}

/** Writes via a temp file and rename, so a crash never leaves a half-written file; mode applies from creation. */
function writePrivateFile(path: string, text: string, mode: number): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode });
  chmodSync(temporary, mode); // umask may have narrowed the creation mode; make it exact
  renameSync(temporary, path);
}

export class ConfigStore {
  constructor(readonly directory: string) {}

  get configPath(): string {
    return join(this.directory, configFileName);
  }

  get credentialsPath(): string {
    return join(this.directory, credentialsFileName);
  }

  readConfig(): ConfigFile {
    const text = readOptionalText(this.configPath);
    return text === undefined ? {} : parseConfigFile(text, this.configPath);
  }

  writeConfig(config: ConfigFile): void {
    this.ensureDirectory();
    writePrivateFile(this.configPath, `${JSON.stringify(config, null, 2)}\n`, 0o600);
  }

  readCredentials(): CredentialsFile {
    const text = readOptionalText(this.credentialsPath);
    return text === undefined ? {} : parseCredentialsFile(text, this.credentialsPath);
  }

  writeCredentials(credentials: CredentialsFile): void {
    this.ensureDirectory();
    writePrivateFile(this.credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`, 0o600);
  }

  private ensureDirectory(): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    chmodSync(this.directory, 0o700);
  }
}

export interface FoundLink extends LinkFile {
  readonly path: string;
}

/** The nearest link file in the working directory or one of its parents. */
export function findLinkFile(workingDirectory: string): FoundLink | undefined {
  let directory = workingDirectory;
  for (;;) {
    const path = join(directory, linkFileName);
    const text = readOptionalText(path);
    if (text !== undefined) return { ...parseLinkFile(text, path), path };
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

export function writeLinkFile(directory: string, link: LinkFile): string {
  const path = join(directory, linkFileName);
  writeFileSync(path, `${JSON.stringify(link, null, 2)}\n`);
  return path;
}

/** Removes the link file of this very directory; false when there is none. */
export function removeLinkFile(directory: string): boolean {
  const path = join(directory, linkFileName);
  if (readOptionalText(path) === undefined) return false;
  rmSync(path);
  return true;
}
