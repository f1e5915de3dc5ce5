// A modal confirmation on the native <dialog>: it traps focus, Escape cancels, and focus returns to
// the button that opened it.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  children: ComponentChildren;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ open, title, confirmLabel, danger, busy, children, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onCancel={(event) => {
      event.preventDefault();
      onCancel();
    }}>
      <h2 id="dialog-title">{title}</h2>
      <div class="dialog-body">{children}</div>
      <div class="actions">
        <button type="button" class={danger ? 'button danger' : 'button primary'} disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
