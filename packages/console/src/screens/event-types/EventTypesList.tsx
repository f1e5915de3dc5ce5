// The catalog of event types the host was configured with, plus Herald's own herald.* types: what
// subscribers may filter on, read-only. Loaded once (it changes only when the host is reconfigured).
import { usePolling } from '../../live/use-polling';
import { href } from '../../router';
import { useSession } from '../../session/context';
import { downloadJson } from '../../ui/download';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeading } from '../../ui/PageHeading';
import { useAction } from '../../ui/use-action';
import { SensitiveFields } from './SensitiveFields';

export function EventTypesList() {
  const { api, can } = useSession();
  const poll = usePolling(() => api.listEventTypes(), 'event-types', false);
  const catalog = poll.data;
  const download = useAction();

  async function downloadAsyncApi() {
    const asyncApi = await download.run(() => api.getAsyncApi());
    if (asyncApi) downloadJson('asyncapi.json', asyncApi);
  }

  return (
    <>
      <PageHeading focusKey="event-types">Event types</PageHeading>
      <p class="muted">
        The types this host documents: those in its configuration (<code>eventTypes</code>) and Herald's own <code>herald.*</code> events.
        Sensitive fields are encrypted at rest.
      </p>
      <div class="actions">
        <button type="button" class="button" disabled={!can.readEvents.allowed || download.busy} onClick={() => void downloadAsyncApi()}>
          Download AsyncAPI
        </button>
        <span class="muted">The catalog as an AsyncAPI 3.0 document: each type's data, the envelope, signature headers and encrypted fields.</span>
      </div>
      {download.error && <ErrorNotice error={download.error} />}
      {!can.readEvents.allowed && <p class="notice">{can.readEvents.reason} The list below will be refused.</p>}
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading event types…</p>}
      {catalog && catalog.count === 0 && <p class="empty">No event type is documented on this host.</p>}
      {catalog && catalog.count > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Event types, by name</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Sensitive fields</th>
              </tr>
            </thead>
            <tbody>
              {catalog.list.map((entry) => (
                <tr key={entry.type} data-event-type={entry.type}>
                  <td>
                    <a href={href({ name: 'event-type', type: entry.type })}>{entry.type}</a>
                  </td>
                  <td>{entry.description ?? <span class="muted">No description</span>}</td>
                  <td>
                    <SensitiveFields fields={entry.sensitive} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
