import type { EngineLogger } from './engine/index.js';

export const silentLogger: EngineLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
