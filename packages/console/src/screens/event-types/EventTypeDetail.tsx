// One event type: its description, sensitive fields, and the example and data schema the host
// documents, as pre-formatted JSON (rendered as text, never as markup). Read-only.
import { usePolling } from '../../live/use-polling';
import { href } from '../../router';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeading } from '../../ui/PageHeading';
import { SensitiveFields } from './SensitiveFields';

function JsonBlock({ id, title, value }: { id: string; title: string; value: unknown }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {value === undefined ? (
        <p class="muted">Not documented for this type.</p>
      ) : (
        // tabIndex: a scrollable block must be reachable from the keyboard.
        <pre class="code" tabIndex={0}>
          {JSON.stringify(value, null, 2)}
        </pre>
      )}
    </section>
  );
}

export function EventTypeDetail({ type }: { type: string }) {
  const { api } = useSession();
  const poll = usePolling(() => api.getEventType(type), `event-type:${type}`, false);
  const entry = poll.data;

  return (
    <>
      <p class="breadcrumb">
        <a href={href({ name: 'event-types' })}>Event types</a> /
      </p>
      <PageHeading focusKey={`event-type:${type}`}>{type}</PageHeading>
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading the event type…</p>}
      {entry && (
        <>
          <dl class="facts">
            <dt>Description</dt>
            <dd>{entry.description ?? <span class="muted">No description</span>}</dd>
            <dt>Sensitive fields</dt>
            <dd>
              <SensitiveFields fields={entry.sensitive} />
            </dd>
          </dl>
          <JsonBlock id="event-type-example" title="Example data" value={entry.example} />
          <JsonBlock id="event-type-schema" title="Data schema" value={entry.dataSchema} />
        </>
      )}
    </>
  );
}
