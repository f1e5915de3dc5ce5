#!/usr/bin/env node
// herald-server: start the host (API + delivery engine) or manage API tokens.
import { parseArgs } from 'node:util';
import { HostConfigError, loadConfig } from '../config/load.js';
import { startHost, type HostMode } from '../host.js';
import { createTokenCommand, listTokensCommand, revokeTokenCommand, UsageError } from './token-commands.js';

const HELP = `herald-server — the Herald webhook host

Usage:
  herald-server start [--config FILE] [--no-engine | --engine-only]
  herald-server token create --name NAME --scopes a,b|all [--expires-in 30d] [--config FILE]
  herald-server token list [--json] [--config FILE]
  herald-server token revoke ID [--config FILE]
  herald-server --help

start          serve the HTTP API on HERALD_HOST:HERALD_PORT (default 127.0.0.1:8080) and run the
               delivery engine. --no-engine: API only. --engine-only: deliveries only (+ /healthz,
               /readyz, /metrics). On the first start of a fresh database a bootstrap admin token
               is printed once and written to HERALD_DATA_DIR/bootstrap-token (mode 0600).
token create   issue an API token (printed once on stdout; only its SHA-256 hash is stored).
token list     list tokens (id, state, name, scopes, dates); never the tokens themselves.
token revoke   revoke a token by id; its principal then shows as deleted_user.

Configuration: HERALD_* environment variables and/or a JSON file (--config or HERALD_CONFIG);
see docs/server.md. Required: HERALD_MONGODB_URI (or MONGODB_URI).
`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function start(configFile: string | undefined, mode: HostMode): Promise<void> {
  const config = loadConfig({ configFile });
  const host = await startHost(config, { mode });
  if (host.bootstrap) {
    process.stdout.write(
      `\nBootstrap admin token (shown once; also saved to ${host.bootstrap.file}, mode 0600):\n\n  ${host.bootstrap.token}\n\n`,
    );
  }
  let signals = 0;
  const stop = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(1); // a second Ctrl-C means "now"
    host.app.log.info({ signal }, 'shutting down');
    host.close().then(
      () => process.exit(0),
      (error: unknown) => {
        host.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      config: { type: 'string' },
      'no-engine': { type: 'boolean' },
      'engine-only': { type: 'boolean' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [command, subcommand, argument] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return;
  }
  if (command === 'start') {
    if (values['no-engine'] && values['engine-only']) throw new UsageError('--no-engine and --engine-only exclude each other');
    const mode: HostMode = values['no-engine'] ? 'api-only' : values['engine-only'] ? 'engine-only' : 'all';
    return start(values.config, mode);
  }
  if (command === 'token') {
    const config = loadConfig({ configFile: values.config });
    if (subcommand === 'create') {
      return createTokenCommand(config, { name: values.name, scopes: values.scopes, expiresIn: values['expires-in'] }, out);
    }
    if (subcommand === 'list') return listTokensCommand(config, { json: values.json }, out);
    if (subcommand === 'revoke') return revokeTokenCommand(config, argument, out);
    throw new UsageError(`unknown token command "${subcommand ?? ''}" (create, list, revoke)`);
  }
  throw new UsageError(`unknown command "${command}"`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof HostConfigError) {
    process.stderr.write(`herald-server: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`herald-server: ${(error as Error).message}\nRun herald-server --help for usage.\n`);
    process.exit(64);
  }
  process.stderr.write(`herald-server: ${(error as Error).message ?? String(error)}\n`);
  process.exit(1);
});
