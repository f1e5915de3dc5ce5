// pino with the redactions every log line needs: credentials and secrets never reach a log, whatever
// object a caller passes.
import pino, { type DestinationStream, type Logger } from 'pino';

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
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'herald-server' },
  };
  return destination ? pino(options, destination) : pino(options);
}
