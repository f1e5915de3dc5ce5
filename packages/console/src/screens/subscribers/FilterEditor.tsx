// The payload filter of the subscriber form, with the recent events it would let through: the
// preview asks the API (it judges the org's newest events exactly as fan-out would, on data the
// console cannot read) a moment after the text or the patterns stop changing.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import type { FilterPreview } from '../../api/types';
import { useSession } from '../../session/context';
import { Field } from '../../ui/Field';
import { Time } from '../../ui/Time';
import { eventsOf, parseFilterText } from './subscriber-form-model';

const PREVIEW_DELAY_MS = 400;

type PreviewState = { kind: 'idle' } | { kind: 'loading' } | { kind: 'shown'; preview: FilterPreview } | { kind: 'refused'; message: string };

export function FilterEditor({ value, events, error, onInput }: { value: string; events: string; error?: string; onInput(value: string): void }) {
  const { api, can } = useSession();
  const [state, setState] = useState<PreviewState>({ kind: 'idle' });
  const parsed = parseFilterText(value);

  useEffect(() => {
    if (parsed.kind !== 'filter' || !can.previewFilter.allowed) {
      setState({ kind: 'idle' });
      return;
    }
    let current = true;
    setState({ kind: 'loading' });
    const timer = setTimeout(() => {
      api.previewFilter(parsed.filter, eventsOf(events)).then(
        (preview) => current && setState({ kind: 'shown', preview }),
        (caught: unknown) => {
          if (!current) return;
          const message = caught instanceof ApiError && caught.fields.length > 0 ? caught.fields.map((field) => `${field.field}: ${field.message}`).join('; ') : String((caught as Error).message);
          setState({ kind: 'refused', message });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // The parsed filter is derived from `value`; re-run on the text, not on a new object each render.
  }, [value, events, can.previewFilter.allowed]);

  return (
    <>
      <Field
        id="field-filter"
        label="Payload filter (optional)"
        hint='A JSON object over type, aggregateType, aggregateId, occurredAt and data.<path>, e.g. {"data.amount": {"$gte": 100}}. Empty: every event of the types above.'
        error={error ?? (parsed.kind === 'invalid' ? parsed.message : undefined)}
      >
        {(describedBy, invalid) => (
          <textarea id="field-filter" name="filter" rows={4} spellcheck={false} aria-describedby={describedBy} aria-invalid={invalid} value={value} onInput={(event) => onInput(event.currentTarget.value)} />
        )}
      </Field>
      {parsed.kind === 'filter' && (
        <section class="filter-preview" aria-labelledby="filter-preview-heading" aria-live="polite">
          <h2 id="filter-preview-heading" class="hint">
            Recent events this filter lets through
          </h2>
          {!can.previewFilter.allowed && <p class="muted">{can.previewFilter.reason} No preview: it shows what a subscriber with this filter would receive.</p>}
          {state.kind === 'loading' && <p class="muted" aria-busy="true">Checking the recent events…</p>}
          {state.kind === 'refused' && <p class="field-error" id="filter-preview-error">{state.message}</p>}
          {state.kind === 'shown' && <PreviewList preview={state.preview} />}
        </section>
      )}
    </>
  );
}

function PreviewList({ preview }: { preview: FilterPreview }) {
  if (preview.list.length === 0) return <p class="muted">No events yet to try it on.</p>;
  const matching = preview.list.filter((event) => event.matches);
  return (
    <>
      <p id="filter-preview-summary">
        {preview.matching} of the {preview.list.length} most recent events match.
      </p>
      {matching.length > 0 && (
        <ul class="filter-preview-list">
          {matching.map((event) => (
            <li key={event.eventId}>
              <code>{event.eventType}</code> {event.aggregateType}/{event.aggregateId} · <Time iso={event.occurredAt} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
