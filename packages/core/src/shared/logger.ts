// The logger Herald writes to, at the bottom of core so every layer can take it: pino's shape (an
// object of fields first, the message second), so a host hands in its own.
export interface EngineLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: EngineLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
