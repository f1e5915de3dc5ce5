// A subscriber's most recent deliveries (the API keeps the latest 50), newest first, polled live.
import { useState } from 'preact/hooks';
import { usePolling } from '../../live/use-polling';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { LiveStatus } from '../../ui/LiveStatus';
import { StatusBadge } from '../../ui/StatusBadge';
import { Time } from '../../ui/Time';

export function RecentDeliveries({ id }: { id: string }) {
  const { api } = useSession();
  const [live, setLive] = useState(true);
  const poll = usePolling(() => api.subscriberDeliveries(id), `deliveries:${id}`, live);
  const rows = poll.data?.list;
  return (
    <section aria-labelledby="recent-deliveries">
      <h2 id="recent-deliveries">Recent deliveries</h2>
      <LiveStatus live={live} updatedAt={poll.updatedAt} nextPollAt={poll.nextPollAt} onToggle={() => setLive(!live)} onRefresh={poll.refresh} />
      {poll.error && <ErrorNotice error={poll.error} />}
      {rows && rows.length === 0 && (
        <p class="empty">
          Nothing delivered to this subscriber yet. Publish an event whose type matches its patterns (see the Events page for a curl
          command); its delivery shows here within seconds.
        </p>
      )}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Recent deliveries to this subscriber, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event type</th>
                <th scope="col">Status</th>
                <th scope="col">Last HTTP status</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.deliveryId}>
                  <td>
                    {row.eventType ?? <span class="muted">unknown</span>}
                    <div class="muted">
                      <Time iso={row.occurredAt} />
                      {row.sequence !== undefined && ` · sequence ${row.sequence}`}
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={row.status} />
                  </td>
                  <td>{row.lastHttpStatus ?? '—'}</td>
                  <td>
                    <Time iso={row.lastAttemptAt} fallback="not yet" />
                  </td>
                  <td class="error-text">{row.lastError ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
