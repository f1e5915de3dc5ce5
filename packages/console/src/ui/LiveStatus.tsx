// "Live · updated 4 s ago · next check in 6 s", with a pause switch and a refresh button. The
// countdown re-renders every second and is deliberately not a live region (it would chatter).
import { useEffect, useState } from 'preact/hooks';

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))} s`;
}

export interface LiveStatusProps {
  live: boolean;
  updatedAt?: number;
  nextPollAt?: number;
  onToggle(): void;
  onRefresh(): void;
}

export function LiveStatus({ live, updatedAt, nextPollAt, onToggle, onRefresh }: LiveStatusProps) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <div class="live-status">
      <span class={live ? 'live-dot on' : 'live-dot'} aria-hidden="true" />
      <span>
        {live ? 'Live' : 'Paused'}
        {updatedAt !== undefined && ` · updated ${seconds(now - updatedAt)} ago`}
        {live && nextPollAt !== undefined && ` · next check in ${seconds(nextPollAt - now)}`}
      </span>
      <button type="button" class="button small" onClick={onRefresh}>
        Refresh now
      </button>
      <button type="button" class="button small" aria-pressed={!live} onClick={onToggle}>
        {live ? 'Pause live updates' : 'Resume live updates'}
      </button>
    </div>
  );
}
