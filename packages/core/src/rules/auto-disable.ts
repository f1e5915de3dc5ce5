// When a subscriber that keeps failing is disabled (pure). A subscriber is auto-disabled when every
// delivery to it has failed for at least `afterMs`: its endpoint health is not healthy, and neither
// a success nor the moment it was last enabled lies inside the window. The run of failures is
// counted from the latest of the three, so re-enabling a subscriber gives it a full window again
// even though its stored health still says when its failures began.

export const DEFAULT_AUTO_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

export interface AutoDisableInput {
  /** The stored endpoint health: its state and the first failure of the current run of failures. */
  health: { state: 'healthy' | 'failing' | 'open'; failingSince: Date };
  /** The newest delivered attempt to the subscriber, any replica; null when none is known. */
  lastSuccessAt: Date | null;
  /** When the subscriber was last enabled again after being disabled; null when never. */
  enabledSince: Date | null;
  now: Date;
  /** The configured limit; 0 turns auto-disable off. */
  afterMs: number;
}

export interface AutoDisableVerdict {
  disable: boolean;
  /** Where the unbroken run of failures starts, as counted. */
  failingFrom: Date;
}

export function autoDisableVerdict(input: AutoDisableInput): AutoDisableVerdict {
  const from = Math.max(input.health.failingSince.getTime(), input.lastSuccessAt?.getTime() ?? -Infinity, input.enabledSince?.getTime() ?? -Infinity);
  const failingFrom = new Date(from);
  if (input.afterMs <= 0 || input.health.state === 'healthy') return { disable: false, failingFrom };
  return { disable: input.now.getTime() - from >= input.afterMs, failingFrom };
}

/** The reason stored on the subscriber and shown by the API. */
export function autoDisableMessage(failingFrom: Date, afterMs: number, lastError: string | null): string {
  const limit = formatDuration(afterMs);
  const cause = lastError === null ? '' : ` (last error: ${lastError})`;
  return `every delivery has failed since ${failingFrom.toISOString()}, longer than the auto-disable limit of ${limit}${cause}; enable it again to resume, and recover the failed range`;
}

function formatDuration(ms: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'm'], [1_000, 's']];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
