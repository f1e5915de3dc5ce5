// A labelled checkbox with, optionally, its hint and the reason the API refused it.
import type { ComponentChildren } from 'preact';

export interface CheckboxFieldProps {
  /** The form field's name; the input's id is `field-<name>`. */
  name: string;
  label: string;
  checked: boolean;
  onChange(checked: boolean): void;
  hint?: ComponentChildren;
  error?: string | undefined;
}

export function CheckboxField({ name, label, checked, onChange, hint, error }: CheckboxFieldProps) {
  const id = `field-${name}`;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class="field checkbox">
      <input id={id} name={name} type="checkbox" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} aria-describedby={hintId} />
      <label for={id}>{label}</label>
      {hint && (
        <p id={hintId} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
