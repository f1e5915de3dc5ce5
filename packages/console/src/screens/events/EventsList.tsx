// Events, newest first, one server page at a time (the browser holds and renders 20 rows however
// many events there are), filtered by status on the server, and refreshed live by polling with
// backoff. What a page costs the server at 10,000 events: bench/console.ts, docs/benchmarks.md.
import { useState } from 'preact/hooks';
import { EVENT_STATUSES, type EventStatus } from '../../api/types';
import { usePolling } from '../../live/use-polling';
import { href, navigate } from '../../router';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { LiveStatus } from '../../ui/LiveStatus';
import { PageHeading } from '../../ui/PageHeading';
import { Pager } from '../../ui/Pager';
import { StatusBadge, statusLabel } from '../../ui/StatusBadge';
import { Time } from '../../ui/Time';
import { deliverySummary } from './delivery-summary';
import { PublishHint } from './PublishHint';
import { RetentionNote } from './RetentionNote';

export function EventsList({ offset, status, cursor }: { offset: number; status?: EventStatus; cursor?: string }) {
  const { api, can, portal } = useSession();
  const [live, setLive] = useState(true);
  const poll = usePolling(() => api.listEvents(offset, status, cursor), `events:${status ?? ''}:${cursor ?? offset}`, live);
  const page = poll.data;

  return (
    <>
      <div class="screen-head">
        <PageHeading focusKey="events">Events</PageHeading>
        <div class="field inline">
          <label for="status-filter">Status</label>
          <select
            id="status-filter"
            value={status ?? ''}
            onChange={(event) => {
              const value = event.currentTarget.value as EventStatus | '';
              navigate({ name: 'events', offset: 0, ...(value ? { status: value } : {}) });
            }}
          >
            <option value="">All statuses</option>
            {EVENT_STATUSES.map((option) => (
              <option key={option} value={option}>
                {statusLabel(option)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <LiveStatus live={live} updatedAt={poll.updatedAt} nextPollAt={poll.nextPollAt} onToggle={() => setLive(!live)} onRefresh={poll.refresh} />
      {!can.readEvents.allowed && <p class="notice">{can.readEvents.reason} The list below will be refused.</p>}
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading events…</p>}
      {page && page.pagination.total === 0 && (status ? <p class="empty">No event is {statusLabel(status).toLowerCase()}. Choose “All statuses” to see the others.</p> : portal ? <p class="empty">No events yet.</p> : <PublishHint />)}
      {page && page.pagination.total > 0 && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Aggregate</th>
                  <th scope="col">Occurred</th>
                  <th scope="col">Status</th>
                  <th scope="col">Deliveries</th>
                </tr>
              </thead>
              <tbody>
                {page.list.map((event) => (
                  <tr key={event.eventId} data-event-id={event.eventId}>
                    <td>
                      <a href={href({ name: 'event', id: event.eventId })}>{event.eventType}</a>
                      <div class="muted">
                        <code>{event.eventId}</code>
                      </div>
                    </td>
                    <td>
                      {event.aggregateType} <code>{event.aggregateId}</code>
                    </td>
                    <td>
                      <Time iso={event.occurredAt} />
                    </td>
                    <td>
                      <StatusBadge status={event.status} />
                    </td>
                    <td>{deliverySummary(event.deliveries)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            pagination={page.pagination}
            count={page.count}
            label="Event pages"
            hrefAt={(next) => href({ name: 'events', offset: next, status })}
            nextHref={page.nextCursor ? href({ name: 'events', offset: 0, status, cursor: page.nextCursor }) : null}
          />
        </>
      )}
      {page && page.list.length === 0 && page.pagination.total > 0 && (
        <p class="empty">
          This page is past the last event. <a href={href({ name: 'events', offset: 0, status })}>Go to the newest events</a>.
        </p>
      )}
      {/* Retention is the sender's setting, which a portal session may not read. */}
      {!portal && <RetentionNote />}
    </>
  );
}
