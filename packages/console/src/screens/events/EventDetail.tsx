// One event with every delivery row and its attempt history, polled live so a retry's new attempts
// show as they happen; redeliver the event or retry one row.
import { useState } from 'preact/hooks';
import type { EventDeliveryDetail } from '../../api/types';
import { usePolling } from '../../live/use-polling';
import { href } from '../../router';
import { useSession } from '../../session/context';
import { ActionReasons } from '../../ui/ActionReasons';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { LiveStatus } from '../../ui/LiveStatus';
import { PageHeading } from '../../ui/PageHeading';
import { StatusBadge } from '../../ui/StatusBadge';
import { Time } from '../../ui/Time';
import { useAction } from '../../ui/use-action';
import { AttemptTimeline } from './AttemptTimeline';

function DeliveryCard({ eventId, delivery, onChanged }: { eventId: string; delivery: EventDeliveryDetail; onChanged(): void }) {
  const { api, can, notify } = useSession();
  const action = useAction();
  const headingId = `delivery-${delivery.deliveryId}`;
  const retry = async () => {
    const row = await action.run(() => api.retryDelivery(eventId, delivery.deliveryId));
    if (row) {
      notify(`Delivery to ${row.subscriberId} queued again.`);
      onChanged();
    }
  };
  return (
    <section class="card delivery" aria-labelledby={headingId} data-delivery-id={delivery.deliveryId}>
      <div class="screen-head">
        <h3 id={headingId}>
          To <a href={href({ name: 'subscriber', id: delivery.subscriberId })}>{delivery.subscriberId}</a> <StatusBadge status={delivery.status} />
        </h3>
        <button
          type="button"
          class="button"
          disabled={!can.manageDeliveries.allowed || action.busy}
          aria-describedby={can.manageDeliveries.allowed ? undefined : 'event-reasons'}
          onClick={retry}
        >
          Retry delivery
        </button>
      </div>
      {action.error && <ErrorNotice error={action.error} />}
      <dl class="facts compact">
        <dt>Target URL</dt>
        <dd class="url">{delivery.targetUrl ?? '—'}</dd>
        {delivery.sequence !== undefined && (
          <>
            <dt>Order in its key</dt>
            <dd>sequence {delivery.sequence}</dd>
          </>
        )}
        <dt>Attempts</dt>
        <dd>{delivery.attempts}</dd>
        {delivery.nextAttemptAt && delivery.status === 'PENDING' && (
          <>
            <dt>Next attempt</dt>
            <dd>
              <Time iso={delivery.nextAttemptAt} />
            </dd>
          </>
        )}
        {delivery.deliveredAt && (
          <>
            <dt>Last delivered</dt>
            <dd>
              <Time iso={delivery.deliveredAt} />
            </dd>
          </>
        )}
        {delivery.encryptedFields.length > 0 && (
          <>
            <dt>Encrypted fields</dt>
            <dd>{delivery.encryptedFields.join(', ')}</dd>
          </>
        )}
      </dl>
      <h4>Attempts</h4>
      <AttemptTimeline attempts={delivery.attemptHistory} label={`Attempts to deliver to ${delivery.subscriberId}`} />
    </section>
  );
}

export function EventDetail({ id }: { id: string }) {
  const { api, can, notify } = useSession();
  const [live, setLive] = useState(true);
  const poll = usePolling(() => api.getEvent(id), `event:${id}`, live);
  const redeliver = useAction();
  const [confirming, setConfirming] = useState(false);
  const event = poll.data;

  const confirmRedeliver = async () => {
    const done = await redeliver.run(() => api.redeliverEvent(id));
    setConfirming(false);
    if (done) {
      notify(`Event queued again for ${done.deliveries.length} subscriber${done.deliveries.length === 1 ? '' : 's'}.`);
      poll.refresh();
    }
  };

  return (
    <>
      <p class="breadcrumb">
        <a href={href({ name: 'events', offset: 0 })}>Events</a> /
      </p>
      <PageHeading focusKey={`event:${id}`}>{event ? `Event ${event.eventType}` : 'Event'}</PageHeading>
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading the event…</p>}
      {event && (
        <>
          <div class="actions">
            <button
              type="button"
              class="button"
              disabled={!can.manageDeliveries.allowed || redeliver.busy || event.deliveries.length === 0}
              aria-describedby={can.manageDeliveries.allowed ? undefined : 'event-reasons'}
              onClick={() => setConfirming(true)}
            >
              Redeliver event
            </button>
          </div>
          <ActionReasons id="event-reasons" capabilities={[can.manageDeliveries]} />
          {redeliver.error && <ErrorNotice error={redeliver.error} />}
          <LiveStatus live={live} updatedAt={poll.updatedAt} nextPollAt={poll.nextPollAt} onToggle={() => setLive(!live)} onRefresh={poll.refresh} />
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={event.status} />
            </dd>
            <dt>Event id</dt>
            <dd>
              <code>{event.eventId}</code>
            </dd>
            <dt>Type</dt>
            <dd>{event.eventType}</dd>
            <dt>Aggregate</dt>
            <dd>
              {event.aggregateType} <code>{event.aggregateId}</code>
            </dd>
            <dt>Occurred</dt>
            <dd>
              <Time iso={event.occurredAt} />
            </dd>
          </dl>
          <h2>Deliveries ({event.deliveries.length})</h2>
          {event.deliveries.length === 0 && (
            <p class="empty">No enabled subscriber matched this event's type when it was published, so nothing was sent.</p>
          )}
          {event.deliveries.map((delivery) => (
            <DeliveryCard key={delivery.deliveryId} eventId={event.eventId} delivery={delivery} onChanged={poll.refresh} />
          ))}
          <ConfirmDialog
            open={confirming}
            title="Redeliver this event?"
            confirmLabel="Redeliver"
            busy={redeliver.busy}
            onConfirm={confirmRedeliver}
            onCancel={() => setConfirming(false)}
          >
            <p>
              Herald sends it again to every subscriber it was delivered to, as their next attempt. Receivers see the same event id and
              should treat it as a duplicate if they already handled it.
            </p>
          </ConfirmDialog>
        </>
      )}
    </>
  );
}
