// One subscriber: its settings, the actions on it (edit, enable/disable, rotate the secret, delete)
// its health, recovering a range of its deliveries, and its most recent deliveries (kept fresh by
// polling).
import { useState } from 'preact/hooks';
import { usePolling } from '../../live/use-polling';
import { href, navigate } from '../../router';
import { useSession } from '../../session/context';
import { ActionReasons } from '../../ui/ActionReasons';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { PageHeading } from '../../ui/PageHeading';
import { EnabledBadge } from '../../ui/StatusBadge';
import { Time } from '../../ui/Time';
import { useAction } from '../../ui/use-action';
import { HealthFacts } from './HealthNote';
import { DisabledNotice } from './DisabledNotice';
import { RecentDeliveries } from './RecentDeliveries';
import { RecoverDeliveries } from './RecoverDeliveries';
import { SendTestEvent } from './SendTestEvent';
import { RotateSecret } from './RotateSecret';
import { isEveryEvent } from './subscriber-form-model';

export function SubscriberDetail({ id }: { id: string }) {
  const { api, can, notify, portal } = useSession();
  const poll = usePolling(() => api.getSubscriber(id), `subscriber:${id}`, false);
  const action = useAction();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [rotating, setRotating] = useState(false);
  const subscriber = poll.data;
  const reasonsId = 'subscriber-reasons';
  const describedBy = (allowed: boolean) => (allowed ? undefined : reasonsId);

  const toggleEnabled = async () => {
    if (!subscriber) return;
    const updated = await action.run(() => api.updateSubscriber(id, { enabled: !subscriber.enabled }));
    if (updated) {
      notify(`${updated.displayName} is now ${updated.enabled ? 'enabled' : 'disabled'}.`);
      poll.refresh();
    }
  };

  const remove = async () => {
    const done = await action.run(async () => {
      await api.deleteSubscriber(id);
      return true;
    });
    setConfirmDelete(false);
    if (done) {
      notify(`Subscriber ${subscriber?.displayName ?? id} was deleted.`);
      navigate({ name: 'subscribers', offset: 0 });
    }
  };

  return (
    <>
      <p class="breadcrumb">
        <a href={href({ name: 'subscribers', offset: 0 })}>Subscribers</a> /
      </p>
      <PageHeading focusKey={`subscriber:${id}`}>{subscriber?.displayName ?? id}</PageHeading>
      {poll.error && <ErrorNotice error={poll.error} />}
      {poll.loading && <p aria-busy="true">Loading the subscriber…</p>}
      {subscriber && (
        <>
          <div class="actions">
            <button type="button" class="button" disabled={!can.updateSubscriber.allowed} aria-describedby={describedBy(can.updateSubscriber.allowed)} onClick={() => navigate({ name: 'subscriber-edit', id })}>
              Edit
            </button>
            <button type="button" class="button" disabled={!can.updateSubscriber.allowed || action.busy} aria-describedby={describedBy(can.updateSubscriber.allowed)} onClick={toggleEnabled}>
              {subscriber.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" class="button" disabled={!can.updateSubscriber.allowed} aria-describedby={describedBy(can.updateSubscriber.allowed)} aria-expanded={rotating} onClick={() => setRotating(!rotating)}>
              Rotate secret
            </button>
            {!portal && (
              <button type="button" class="button danger" disabled={!can.deleteSubscriber.allowed || action.busy} aria-describedby={describedBy(can.deleteSubscriber.allowed)} onClick={() => setConfirmDelete(true)}>
                Delete
              </button>
            )}
          </div>
          <ActionReasons id={reasonsId} capabilities={portal ? [can.updateSubscriber] : [can.updateSubscriber, can.deleteSubscriber]} />
          <DisabledNotice reason={subscriber.disabledReason} />
          {action.error && <ErrorNotice error={action.error} />}
          {rotating && (
            <RotateSecret
              id={id}
              hadSecret={subscriber.hasSecret}
              onDone={() => {
                poll.refresh();
              }}
              onClose={() => setRotating(false)}
            />
          )}
          <dl class="facts">
            <dt>Handle</dt>
            <dd>
              <code>{subscriber.id}</code>
            </dd>
            <dt>State</dt>
            <dd>
              <EnabledBadge enabled={subscriber.enabled} />
            </dd>
            <dt>Health</dt>
            <dd>
              <HealthFacts health={subscriber.health} />
            </dd>
            <dt>Target URL</dt>
            <dd class="url">{subscriber.targetUrl}</dd>
            <dt>Events</dt>
            <dd>{isEveryEvent(subscriber.events) ? 'All events' : subscriber.events.map((pattern) => <code key={pattern} class="scope">{pattern}</code>)}</dd>
            <dt>Time-out</dt>
            <dd>{subscriber.timeoutMs} ms</dd>
            <dt>Ordering</dt>
            <dd>{subscriber.ordering === 'aggregate' ? 'Per aggregate: one at a time, in order' : 'None'}</dd>
            <dt>Egress proxy</dt>
            <dd>{subscriber.egressProxy === undefined ? "The server's default" : subscriber.egressProxy === 'none' ? 'None: sent directly' : <code>{subscriber.egressProxy}</code>}</dd>
            <dt>Client certificate</dt>
            <dd>
              {subscriber.tls?.subject !== undefined ? (
                <>
                  <code>{subscriber.tls.subject}</code>, issued by <code>{subscriber.tls.issuer}</code>
                  {subscriber.tls.notAfter !== undefined && (
                    <>
                      ; expires <Time iso={subscriber.tls.notAfter} />
                    </>
                  )}
                  <br />
                  <span class="hint">SHA-256 {subscriber.tls.fingerprint256}</span>
                </>
              ) : (
                'None'
              )}
            </dd>
            <dt>Trusted CAs</dt>
            <dd>
              {subscriber.tls && subscriber.tls.caCertificates > 0
                ? `${subscriber.tls.caCertificates} CA certificate(s) of its own for the endpoint's server certificate`
                : 'The public ones'}
            </dd>
            <dt>OAuth2</dt>
            <dd>
              {subscriber.oauth2 ? (
                <>
                  Client <code>{subscriber.oauth2.clientId}</code> at <code>{subscriber.oauth2.tokenUrl}</code>
                  {subscriber.oauth2.scope ? (
                    <>
                      , scope <code>{subscriber.oauth2.scope}</code>
                    </>
                  ) : null}
                  {subscriber.oauth2.audience ? (
                    <>
                      , audience <code>{subscriber.oauth2.audience}</code>
                    </>
                  ) : null}
                  <br />
                  <span class="hint">Client secret set (never shown); sent {subscriber.oauth2.clientAuthentication === 'body' ? 'in the request body' : 'as HTTP Basic'}</span>
                </>
              ) : (
                'None'
              )}
            </dd>
            <dt>Secret</dt>
            <dd>{subscriber.hasSecret ? 'Set (never shown)' : 'None: deliveries are not signed'}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={subscriber.createdAt} /> by <code>{subscriber.createdBy}</code>
            </dd>
            <dt>Updated</dt>
            <dd>
              <Time iso={subscriber.updatedAt} />
              {subscriber.updatedBy && (
                <>
                  {' '}
                  by <code>{subscriber.updatedBy}</code>
                </>
              )}
            </dd>
          </dl>
          {/* Recovery replays a range in bulk: the sender's operation, not the consumer's. */}
          {!portal && <RecoverDeliveries id={id} enabled={subscriber.enabled} onCompleted={poll.refresh} />}
          {can.sendTestEvent.allowed && can.readEvents.allowed && <SendTestEvent />}
          <RecentDeliveries id={id} />
          <ConfirmDialog
            open={confirmDelete}
            title={`Delete ${subscriber.displayName}?`}
            confirmLabel="Delete subscriber"
            danger
            busy={action.busy}
            onConfirm={remove}
            onCancel={() => setConfirmDelete(false)}
          >
            <p>
              Herald stops delivering to <span class="url">{subscriber.targetUrl}</span>. This cannot be undone; the handle{' '}
              <code>{subscriber.id}</code> becomes free again.
            </p>
          </ConfirmDialog>
        </>
      )}
    </>
  );
}
