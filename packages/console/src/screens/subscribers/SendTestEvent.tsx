// "Send a test event" (shown only to a credential that may: SubscriberDetail checks): publishes an event type's catalog example (POST /webhook-event-types/{type}/test),
// so an endpoint can be tried end to end without anyone writing a payload. Only types with an
// example are offered; Herald's own herald.* types are never sent this way.
import { useEffect, useState } from 'preact/hooks';
import type { EventType, WebhookEvent } from '../../api/types';
import { href } from '../../router';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { useAction } from '../../ui/use-action';

export function sendableTypes(types: readonly EventType[]): string[] {
  return types.filter((type) => type.example !== undefined && !type.type.startsWith('herald.')).map((type) => type.type);
}

export function SendTestEvent() {
  const { api, notify } = useSession();
  const [types, setTypes] = useState<string[]>();
  const [type, setType] = useState('');
  const [sent, setSent] = useState<WebhookEvent>();
  const load = useAction();
  const send = useAction();

  useEffect(() => {
    void load.run(() => api.listEventTypes()).then((list) => {
      if (!list) return;
      const names = sendableTypes(list.list);
      setTypes(names);
      setType(names[0] ?? '');
    });
    // Loaded once per screen (the catalog is the host's configuration), not on every render.
  }, [api]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const published = await send.run(() => api.sendTestEvent(type));
    if (published) {
      setSent(published);
      notify(`Test event ${published.eventType} sent.`);
    }
  };

  return (
    <section class="card" aria-labelledby="test-event-title">
      <h2 id="test-event-title">Send a test event</h2>
      <p class="muted">It goes to every endpoint subscribed to its type, this one included, with the type's example as its data.</p>
      {load.error && <ErrorNotice error={load.error} />}
      {types && types.length === 0 && <p>No event type has an example to send.</p>}
      {types && types.length > 0 && (
        <form onSubmit={submit} class="inline-form">
          <label for="test-event-type">Event type</label>{' '}
          <select id="test-event-type" value={type} onChange={(event) => setType((event.target as HTMLSelectElement).value)}>
            {types.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>{' '}
          <button type="submit" class="button" disabled={send.busy}>
            Send test event
          </button>
        </form>
      )}
      {send.error && <ErrorNotice error={send.error} />}
      {sent && (
        <p>
          Sent: <a href={href({ name: 'event', id: sent.eventId })}>event {sent.eventId}</a>.
        </p>
      )}
    </section>
  );
}
