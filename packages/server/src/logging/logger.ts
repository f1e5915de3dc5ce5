// pino with the redactions every log line needs: credentials and secrets never reach a log, whatever
// object a caller passes.
import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyStream } from './pretty.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'secret',
  'token',
  'password',
  'masterKeys',
  '*.authorization',
  '*.secret',
  '*.token',
  '*.password',
  '*.masterKeys',
  '*.publicKeyPem',
  // Proxy URLs may carry credentials.
  'egressProxy',
  'egressProxies',
  '*.egressProxies',
];

export type LogFormat = 'json' | 'pretty';

/** `pretty` on a terminal, `json` anywhere else, unless HERALD_LOG_FORMAT says otherwise. */
export function logFormatFor(configured: string | undefined, isTerminal: boolean): LogFormat {
  if (configured === 'json' || configured === 'pretty') return configured;
  return isTerminal ? 'pretty' : 'json';
}

export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  if (!destination && format === 'pretty') {
    destination = prettyStream(process.stdout, process.stdout.isTTY === true && !process.env.NO_COLOR);
  }
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'herald-server' },
  };
  return destination ? pino(options, destination) : pino(options);
}
