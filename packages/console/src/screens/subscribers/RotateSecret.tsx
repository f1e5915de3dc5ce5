// Rotate a subscriber's signing secret: PUT with only a new `secret`. The console can generate a
// strong one in the browser (Web Crypto); it is shown until the form closes, and never again.
import { useState } from 'preact/hooks';
import { useSession } from '../../session/context';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Field } from '../../ui/Field';
import { useAction } from '../../ui/use-action';

const SECRET_MIN = 16;

export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export function RotateSecret({ id, hadSecret, onDone, onClose }: { id: string; hadSecret: boolean; onDone(): void; onClose(): void }) {
  const { api, notify } = useSession();
  const [secret, setSecret] = useState('');
  const [rotated, setRotated] = useState(false);
  const action = useAction();
  const fieldError = action.error?.fields.find((field) => field.field === 'secret')?.message;

  const submit = async (event: Event) => {
    event.preventDefault();
    const updated = await action.run(() => api.updateSubscriber(id, { secret }));
    if (updated) {
      setRotated(true);
      notify(`The secret of ${updated.displayName} was ${hadSecret ? 'rotated' : 'set'}.`);
      onDone();
    }
  };

  return (
    <form class="card inline-form" method="post" onSubmit={submit} aria-labelledby="rotate-title">
      <h2 id="rotate-title">Rotate secret</h2>
      <p>
        The new secret signs every delivery from now on; the old one stops working at once. Give the new one to the receiver first if it
        cannot accept both for a while.
      </p>
      <Field id="new-secret" label="New secret" hint={`${SECRET_MIN} to 512 characters.`} error={fieldError}>
        {(describedBy, invalid) => (
          <input
            id="new-secret"
            name="secret"
            type="text"
            autoComplete="off"
            spellcheck={false}
            required
            minLength={SECRET_MIN}
            maxLength={512}
            readOnly={rotated}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={secret}
            onInput={(event) => setSecret(event.currentTarget.value)}
          />
        )}
      </Field>
      {action.error && <ErrorNotice error={action.error} />}
      {rotated ? (
        <p class="notice notice-good">Rotated. Copy the secret now: Herald never shows it again.</p>
      ) : null}
      <div class="actions">
        {!rotated && (
          <>
            <button type="submit" class="button primary" disabled={action.busy}>
              Save new secret
            </button>
            <button type="button" class="button" onClick={() => setSecret(generateSecret())}>
              Generate one
            </button>
          </>
        )}
        <button type="button" class="button" onClick={onClose}>
          {rotated ? 'Done' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}
