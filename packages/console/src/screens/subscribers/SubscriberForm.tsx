// Create a subscriber, or edit one (only the fields you changed are sent). Refused fields are marked
// where they are, with the API's own words.
import { useEffect, useState } from 'preact/hooks';
import { usePolling } from '../../live/use-polling';
import { href, navigate } from '../../router';
import { useSession } from '../../session/context';
import { ActionReasons } from '../../ui/ActionReasons';
import { CheckboxField } from '../../ui/CheckboxField';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Field } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { useAction } from '../../ui/use-action';
import { FilterEditor } from './FilterEditor';
import { changedFields, createBody, EMPTY_FORM, formFieldOf, valuesOf, type FormValues } from './subscriber-form-model';

/** The mutual TLS fields: PEM text pasted in; the key is write-only (never shown, never read back). */
const PEM_FIELDS = {
  clientCertificate: {
    label: 'Client certificate (optional, PEM)',
    hint: 'Presented to an https endpoint that asks for one (mutual TLS), with its key below. Replaces the stored one.',
  },
  clientKey: { label: 'Client key (PEM)', hint: "The certificate's unencrypted private key. Stored encrypted; never shown again." },
  caBundle: {
    label: 'CA bundle (optional, PEM)',
    hint: "Certificate authorities trusted for the endpoint's server certificate instead of the public ones; with or without a client certificate.",
  },
} as const;

/** The OAuth2 client credentials fields; the client secret is write-only (never shown, never read back). */
const OAUTH2_FIELDS = {
  oauth2TokenUrl: {
    label: 'OAuth2 token URL (optional)',
    hint: 'Herald obtains a Bearer token here (client credentials) and sends it beside the signature. https, or http to this machine only.',
    secret: false,
  },
  oauth2ClientId: { label: 'OAuth2 client id', hint: 'Goes with the token URL and the client secret.', secret: false },
  oauth2ClientSecret: {
    label: 'OAuth2 client secret',
    hint: 'Stored encrypted; never shown again. Changing any OAuth2 field needs it again: the credentials are replaced as a whole.',
    secret: true,
  },
  oauth2Scope: { label: 'OAuth2 scope (optional)', hint: 'Space-separated scopes asked for.', secret: false },
  oauth2Audience: { label: 'OAuth2 audience (optional)', hint: 'The audience asked for, when the token server wants one.', secret: false },
} as const;

export function SubscriberForm({ id }: { id?: string }) {
  const editing = id !== undefined;
  const { api, can, notify } = useSession();
  const existing = usePolling(() => (id === undefined ? Promise.resolve(undefined) : api.getSubscriber(id)), `subscriber-form:${id ?? ''}`, false);
  const [values, setValues] = useState<FormValues>(EMPTY_FORM);
  const [loaded, setLoaded] = useState(!editing);
  const [unchanged, setUnchanged] = useState(false);
  const action = useAction();
  const capability = editing ? can.updateSubscriber : can.createSubscriber;

  useEffect(() => {
    if (existing.data && !loaded) {
      setValues(valuesOf(existing.data));
      setLoaded(true);
    }
  }, [existing.data, loaded]);

  const errors: Partial<Record<keyof FormValues, string>> = {};
  for (const field of action.error?.fields ?? []) {
    const name = formFieldOf(field.field);
    if (name && errors[name] === undefined) errors[name] = field.message;
  }

  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => {
    setUnchanged(false);
    setValues((current) => ({ ...current, [key]: value }));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (editing) {
      if (!existing.data) return;
      const changes = changedFields(existing.data, values);
      if (Object.keys(changes).length === 0) {
        setUnchanged(true);
        return;
      }
      const updated = await action.run(() => api.updateSubscriber(id, changes));
      if (updated) {
        notify(`Saved ${Object.keys(changes).join(', ')} of ${updated.displayName}.`);
        navigate({ name: 'subscriber', id: updated.id });
      }
    } else {
      const created = await action.run(() => api.createSubscriber(createBody(values)));
      if (created) {
        notify(`Subscriber ${created.displayName} was created.`);
        navigate({ name: 'subscriber', id: created.id });
      }
    }
  };

  const title = editing ? `Edit ${existing.data?.displayName ?? id}` : 'New subscriber';
  const input = (key: 'id' | 'displayName' | 'targetUrl' | 'secret' | 'timeoutMs' | 'egressProxy') => ({
    id: `field-${key}`,
    name: key,
    value: values[key],
    onInput: (event: { currentTarget: HTMLInputElement }) => set(key, event.currentTarget.value),
  });

  return (
    <>
      <p class="breadcrumb">
        <a href={href({ name: 'subscribers', offset: 0 })}>Subscribers</a> /{' '}
        {editing && (
          <>
            <a href={href({ name: 'subscriber', id })}>{existing.data?.displayName ?? id}</a> /
          </>
        )}
      </p>
      <PageHeading focusKey={`form:${id ?? 'new'}`}>{title}</PageHeading>
      <ActionReasons id="form-reasons" capabilities={[capability]} />
      {existing.error && <ErrorNotice error={existing.error} />}
      {!loaded && !existing.error && <p aria-busy="true">Loading the subscriber…</p>}
      {loaded && (
        <form class="card" method="post" onSubmit={submit} noValidate>
          {!editing && (
            <Field id="field-id" label="Handle (optional)" hint="Letters, digits, '.', '_' and '-'; generated when left empty." error={errors.id}>
              {(describedBy, invalid) => <input {...input('id')} autoComplete="off" spellcheck={false} aria-describedby={describedBy} aria-invalid={invalid} />}
            </Field>
          )}
          <Field id="field-displayName" label="Name" error={errors.displayName}>
            {(describedBy, invalid) => <input {...input('displayName')} required autoComplete="off" aria-describedby={describedBy} aria-invalid={invalid} />}
          </Field>
          <Field id="field-targetUrl" label="Target URL" hint="Absolute http:// or https:// URL that receives the deliveries." error={errors.targetUrl}>
            {(describedBy, invalid) => (
              <input {...input('targetUrl')} type="url" required autoComplete="off" spellcheck={false} aria-describedby={describedBy} aria-invalid={invalid} />
            )}
          </Field>
          {!editing && (
            <Field id="field-secret" label="Secret (optional)" hint="16 to 512 characters; signs each delivery. Never shown again; rotate it from the subscriber's page." error={errors.secret}>
              {(describedBy, invalid) => <input {...input('secret')} type="password" autoComplete="new-password" aria-describedby={describedBy} aria-invalid={invalid} />}
            </Field>
          )}
          <Field id="field-events" label="Event types" hint="Patterns such as order.created, order.*, *.deleted or *, separated by commas or spaces. Empty or *: every event." error={errors.events}>
            {(describedBy, invalid) => (
              <textarea
                id="field-events"
                name="events"
                rows={2}
                spellcheck={false}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                value={values.events}
                onInput={(event) => set('events', event.currentTarget.value)}
              />
            )}
          </Field>
          <Field id="field-timeoutMs" label="Time-out (ms)" hint="100 to 30000; 5000 when left empty." error={errors.timeoutMs}>
            {(describedBy, invalid) => <input {...input('timeoutMs')} inputMode="numeric" autoComplete="off" aria-describedby={describedBy} aria-invalid={invalid} />}
          </Field>
          <Field
            id="field-egressProxy"
            label="Egress proxy (optional)"
            hint="The name of an egress proxy the server's operator configured, or none to send directly. Empty: the server's default."
            error={errors.egressProxy}
          >
            {(describedBy, invalid) => <input {...input('egressProxy')} autoComplete="off" spellcheck={false} aria-describedby={describedBy} aria-invalid={invalid} />}
          </Field>
          {(['clientCertificate', 'clientKey', 'caBundle'] as const).map((key) => (
            <Field key={key} id={`field-${key}`} label={PEM_FIELDS[key].label} hint={PEM_FIELDS[key].hint} error={errors[key]}>
              {(describedBy, invalid) => (
                <textarea
                  id={`field-${key}`}
                  name={key}
                  rows={3}
                  spellcheck={false}
                  autoComplete="off"
                  placeholder="-----BEGIN …-----"
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  value={values[key]}
                  onInput={(event) => set(key, event.currentTarget.value)}
                />
              )}
            </Field>
          ))}
          {editing && existing.data?.tls && (
            <CheckboxField
              name="removeClientTls"
              label="Remove the client certificate, its key and the CA bundle"
              checked={values.removeClientTls}
              onChange={(checked) => set('removeClientTls', checked)}
            />
          )}
          {(Object.keys(OAUTH2_FIELDS) as Array<keyof typeof OAUTH2_FIELDS>).map((key) => (
            <Field key={key} id={`field-${key}`} label={OAUTH2_FIELDS[key].label} hint={OAUTH2_FIELDS[key].hint} error={errors[key]}>
              {(describedBy, invalid) => {
                const shared = {
                  id: `field-${key}`,
                  name: key,
                  spellcheck: false,
                  'aria-describedby': describedBy,
                  'aria-invalid': invalid,
                  value: values[key],
                  onInput: (event: { currentTarget: HTMLInputElement }) => set(key, event.currentTarget.value),
                };
                // The secret is masked and never offered by the browser's autofill as a saved password.
                return OAUTH2_FIELDS[key].secret ? <input {...shared} type="password" autoComplete="new-password" /> : <input {...shared} type="text" autoComplete="off" />;
              }}
            </Field>
          ))}
          <CheckboxField
            name="oauth2SecretInBody"
            label="Send the OAuth2 client id and secret in the request body instead of an HTTP Basic header"
            checked={values.oauth2SecretInBody}
            onChange={(checked) => set('oauth2SecretInBody', checked)}
            error={errors.oauth2SecretInBody}
          />
          {editing && existing.data?.oauth2 && (
            <CheckboxField name="removeOAuth2" label="Remove the OAuth2 client credentials" checked={values.removeOAuth2} onChange={(checked) => set('removeOAuth2', checked)} />
          )}
          <FilterEditor value={values.filter} events={values.events} error={errors.filter} onInput={(text) => set('filter', text)} />
          <CheckboxField
            name="ordered"
            label="Ordered per aggregate: events of one aggregate type + id are delivered one at a time, in order"
            checked={values.ordered}
            onChange={(checked) => set('ordered', checked)}
            hint={
              <>
                A delivery waiting on retries holds back only its own aggregate; each body carries its <code>sequence</code>. Turning it off releases what waits.
              </>
            }
          />
          <CheckboxField name="enabled" label="Enabled: receives deliveries" checked={values.enabled} onChange={(checked) => set('enabled', checked)} />
          {action.error && <ErrorNotice error={action.error} />}
          {unchanged && (
            <p class="notice" role="status">
              Nothing to save: no field differs from the stored subscriber.
            </p>
          )}
          <div class="actions">
            <button type="submit" class="button primary" disabled={!capability.allowed || action.busy} aria-describedby={capability.allowed ? undefined : 'form-reasons'}>
              {editing ? 'Save changes' : 'Create subscriber'}
            </button>
            <a class="button" href={editing ? href({ name: 'subscriber', id }) : href({ name: 'subscribers', offset: 0 })}>
              Cancel
            </a>
          </div>
        </form>
      )}
    </>
  );
}
