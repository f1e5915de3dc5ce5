// One log line when the store stops answering and one when it answers again, so an operator
// reading the log sees a stuck store at once rather than a trail of timeouts.
import type { EngineLogger as Logger } from '../shared/logger.js';
import type { StoreWatch } from './store-watch.js';

/** Silence this long is reported: long past any healthy command of Herald's, short enough to act on. */
export const STORE_SILENCE_REPORT_MS = 5_000;
const CHECK_EVERY_MS = 1_000;

export function reportStoreSilence(watch: StoreWatch, logger: Logger, thresholdMs = STORE_SILENCE_REPORT_MS): { stop(): void } {
  let silentSince: number | undefined;
  const timer = setInterval(() => {
    const silentForMs = watch.silentForMs();
    if (silentSince === undefined && silentForMs >= thresholdMs) {
      silentSince = Date.now() - silentForMs;
      logger.error(
        { silentForMs, waitingCommands: watch.waiting },
        `the database has answered no command for ${Math.round(silentForMs / 1000)} s while ${watch.waiting} wait: requests are answered 503 and /readyz is 503 until it answers again`,
      );
    } else if (silentSince !== undefined && silentForMs < thresholdMs) {
      logger.info({ silentForMs: Date.now() - silentSince }, 'the database answers again');
      silentSince = undefined;
    }
  }, CHECK_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
