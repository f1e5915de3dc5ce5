// A delivery's attempts in order, as a timeline: when, how it ended (HTTP status or error class),
// how long it took, and what the receiver answered.
import type { DeliveryAttempt } from '../../api/types';
import { formatDuration, Time } from '../../ui/Time';

function outcomeOf(attempt: DeliveryAttempt): { text: string; tone: 'good' | 'bad' } {
  const ok = attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300 && attempt.errorClass === null;
  const parts = [attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : 'No HTTP answer', attempt.errorClass].filter(Boolean);
  return { text: parts.join(' · '), tone: ok ? 'good' : 'bad' };
}

export function AttemptTimeline({ attempts, label }: { attempts: DeliveryAttempt[]; label: string }) {
  if (attempts.length === 0) return <p class="muted">No attempt yet: the delivery engine picks it up within a few seconds.</p>;
  return (
    <ol class="timeline" aria-label={label}>
      {attempts.map((attempt) => {
        const outcome = outcomeOf(attempt);
        return (
          <li key={attempt.attempt} class={`timeline-item ${outcome.tone}`} data-attempt={attempt.attempt}>
            <p class="timeline-head">
              <strong>Attempt {attempt.attempt}</strong> <span class={`badge badge-${outcome.tone}`}>{outcome.text}</span>{' '}
              <span class="muted">
                <Time iso={attempt.startedAt} /> · took {formatDuration(attempt.durationMs)}
              </span>
            </p>
            {attempt.errorMessage && attempt.errorMessage !== `HTTP ${attempt.httpStatus}` && <p class="error-text">{attempt.errorMessage}</p>}
            {attempt.responseBodySnippet !== null && attempt.responseBodySnippet !== '' && (
              <details>
                <summary>Response body (first 4 KiB)</summary>
                <pre class="code" tabIndex={0}>
                  {attempt.responseBodySnippet}
                </pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
