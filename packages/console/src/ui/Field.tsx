// A labelled form field with its hint and, when the API refused it, the reason next to it.
import type { ComponentChildren } from 'preact';

export interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  children(describedBy: string | undefined, invalid: boolean): ComponentChildren;
}

export function Field({ id, label, hint, error, children }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {children(describedBy, error !== undefined)}
      {hint && (
        <p id={hintId} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
