// Send a subscriber's settled deliveries in a time range again (POST …/recover), typically its
// failed ones after the endpoint was down long enough for retries to run out; then follow the
// recovery, which the engine runs in the background, until it completes.
import { useState } from 'preact/hooks';
import { RECOVERABLE_STATUSES, type RecoverableStatus, type Recovery } from '../../api/types';
import { useSession } from '../../session/context';
import { ActionReasons } from '../../ui/ActionReasons';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Field } from '../../ui/Field';
import { useAction } from '../../ui/use-action';
import { RecoveryProgress } from './RecoveryProgress';
import { defaultRecoveryForm, recoveryRequest, type RecoveryForm } from './recovery-form-model';

const STATUS_LABELS: Record<RecoverableStatus, string> = {
  FAILED: 'Failed (retries ran out)',
  DELIVERED: 'Delivered (replay them)',
};

export const DISABLED_SUBSCRIBER_REASON = 'This subscriber is disabled, and Herald refuses to recover its deliveries: enable it first.';

/** `onCompleted`: the subscriber's health may have changed once its deliveries went out again. */
export function RecoverDeliveries({ id, enabled, onCompleted }: { id: string; enabled: boolean; onCompleted(): void }) {
  const { api, can, notify } = useSession();
  const [form, setForm] = useState<RecoveryForm>(() => defaultRecoveryForm());
  const [problem, setProblem] = useState<string>();
  const [recovery, setRecovery] = useState<Recovery>();
  const action = useAction();
  const capability = can.manageDeliveries;
  const allowed = capability.allowed && enabled;

  const toggle = (status: RecoverableStatus, on: boolean) =>
    setForm((current) => ({ ...current, statuses: RECOVERABLE_STATUSES.filter((item) => (item === status ? on : current.statuses.includes(item))) }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const checked = recoveryRequest(form);
    if ('problem' in checked) {
      setProblem(checked.problem);
      return;
    }
    setProblem(undefined);
    const started = await action.run(() => api.recoverDeliveries(id, checked.request));
    if (started) {
      setRecovery(started);
      notify(`Recovery ${started.recoveryId} started.`);
    }
  };

  return (
    <section class="card inline-form" aria-labelledby="recover-title">
      <h2 id="recover-title">Recover deliveries</h2>
      <p class="muted">
        Sends this subscriber's deliveries created in the range again, each with a fresh retry budget (attempt numbers continue).
      </p>
      <form method="post" onSubmit={submit} aria-labelledby="recover-title">
        <Field id="recover-since" label="Since" hint="Deliveries created at or after this local time.">
          {(describedBy) => (
            <input
              id="recover-since"
              name="since"
              type="datetime-local"
              required
              aria-describedby={describedBy}
              value={form.since}
              onInput={(event) => setForm({ ...form, since: event.currentTarget.value })}
            />
          )}
        </Field>
        <Field id="recover-until" label="Until (optional)" hint="Deliveries created before this local time; empty means now.">
          {(describedBy) => (
            <input
              id="recover-until"
              name="until"
              type="datetime-local"
              aria-describedby={describedBy}
              value={form.until}
              onInput={(event) => setForm({ ...form, until: event.currentTarget.value })}
            />
          )}
        </Field>
        <fieldset class="statuses">
          <legend>Statuses to send again</legend>
          {RECOVERABLE_STATUSES.map((status) => (
            <div key={status} class="field checkbox">
              <input
                id={`recover-${status}`}
                name="statuses"
                type="checkbox"
                value={status}
                checked={form.statuses.includes(status)}
                onChange={(event) => toggle(status, event.currentTarget.checked)}
              />
              <label for={`recover-${status}`}>{STATUS_LABELS[status]}</label>
            </div>
          ))}
        </fieldset>
        {problem && (
          <p class="field-error" role="alert">
            {problem}
          </p>
        )}
        {action.error && <ErrorNotice error={action.error} />}
        <div class="actions">
          <button type="submit" class="button primary" disabled={!allowed || action.busy} aria-describedby={allowed ? undefined : 'recover-reasons'}>
            Recover deliveries
          </button>
        </div>
        {!capability.allowed ? (
          <ActionReasons id="recover-reasons" capabilities={[capability]} />
        ) : (
          !enabled && (
            <p id="recover-reasons" class="action-reasons">
              {DISABLED_SUBSCRIBER_REASON}
            </p>
          )
        )}
      </form>
      {recovery && <RecoveryProgress key={recovery.recoveryId} subscriberId={id} started={recovery} onCompleted={onCompleted} />}
    </section>
  );
}
