// One server page of subscribers (oldest first, as the API lists them), with a search that filters
// the page by name, handle or URL as you type.
import { useState } from 'preact/hooks';
import type { Subscriber } from '../../api/types';
import { href, navigate } from '../../router';
import { useSession } from '../../session/context';
import { usePolling } from '../../live/use-polling';
import { ActionReasons } from '../../ui/ActionReasons';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeading } from '../../ui/PageHeading';
import { Pager } from '../../ui/Pager';
import { EnabledBadge } from '../../ui/StatusBadge';
import { HealthNote } from './HealthNote';
import { DisabledBadge } from './DisabledNotice';
import { isEveryEvent } from './subscriber-form-model';

function matches(subscriber: Subscriber, search: string): boolean {
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return [subscriber.displayName, subscriber.id, subscriber.targetUrl].some((text) => text.toLowerCase().includes(needle));
}

function EmptySubscribers({ canCreate }: { canCreate: boolean }) {
  return (
    <div class="empty">
      <h2>No subscribers yet</h2>
      <p>
        A subscriber is an HTTPS endpoint that receives the events it subscribes to, signed with its secret.{' '}
        {canCreate ? (
          <>
            <a href={href({ name: 'subscriber-new' })}>Create the first one</a>, pointing at a URL you control.
          </>
        ) : (
          'Ask someone whose token may create subscribers to add one.'
        )}
      </p>
    </div>
  );
}

export function SubscribersList({ offset }: { offset: number }) {
  const { api, can, portal } = useSession();
  const [search, setSearch] = useState('');
  const poll = usePolling(() => api.listSubscribers(offset), `subscribers:${offset}`, false);
  const page = poll.data;
  const shown = page ? page.list.filter((subscriber) => matches(subscriber, search)) : [];

  return (
    <>
      <div class="screen-head">
        <PageHeading focusKey={`subscribers:${offset}`}>Subscribers</PageHeading>
        <div class="actions">
          {!portal && (
            <button type="button" class="button primary" disabled={!can.createSubscriber.allowed} aria-describedby={can.createSubscriber.allowed ? undefined : "subscribers-reasons"} onClick={() => navigate({ name: 'subscriber-new' })}>
              New subscriber
            </button>
          )}
          <button type="button" class="button" onClick={poll.refresh}>
            Refresh
          </button>
        </div>
      </div>
      {!portal && <ActionReasons id="subscribers-reasons" capabilities={[can.createSubscriber]} />}
      {!can.readSubscribers.allowed && <p class="notice">{can.readSubscribers.reason} The list below will be refused.</p>}
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading subscribers…</p>}
      {page && page.pagination.total === 0 && <EmptySubscribers canCreate={can.createSubscriber.allowed} />}
      {page && page.pagination.total > 0 && (
        <>
          <div class="field search">
            <label for="subscriber-search">Search this page</label>
            <input id="subscriber-search" type="search" placeholder="Name, handle or URL" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
          </div>
          {shown.length === 0 ? (
            <p class="empty">No subscriber on this page matches “{search}”. Clear the search or look on the other pages.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Subscribers, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Target URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((subscriber) => (
                    <tr key={subscriber.id}>
                      <td>
                        <a href={href({ name: 'subscriber', id: subscriber.id })}>{subscriber.displayName}</a>
                        <div class="muted">
                          <code>{subscriber.id}</code>
                        </div>
                      </td>
                      <td class="url">{subscriber.targetUrl}</td>
                      <td>{isEveryEvent(subscriber.events) ? <span class="muted">all events</span> : subscriber.events.join(', ')}</td>
                      <td>
                        <EnabledBadge enabled={subscriber.enabled} /> <DisabledBadge reason={subscriber.disabledReason} /> <HealthNote health={subscriber.health} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager pagination={page.pagination} count={page.count} label="Subscriber pages" hrefAt={(next) => href({ name: 'subscribers', offset: next })} />
        </>
      )}
    </>
  );
}
