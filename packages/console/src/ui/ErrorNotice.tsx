// An API failure in words: what happened, which fields were refused and why, and the request id to
// look up in the host's log. Never an empty box.
import type { ApiError } from '../api/client';

const HEADINGS: Record<number, string> = {
  0: 'Herald could not be reached',
  400: 'Herald refused the request',
  401: 'Your token was not accepted',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  503: 'Herald is unavailable for a moment',
};

function headingOf(error: ApiError): string {
  return HEADINGS[error.status] ?? (error.status >= 500 ? 'Herald failed to answer' : 'The request failed');
}

export function ErrorNotice({ error, title }: { error: ApiError; title?: string }) {
  return (
    <div class="notice notice-error" role="alert">
      <p class="notice-title">{title ?? headingOf(error)}</p>
      <p>{error.message}</p>
      {error.fields.length > 0 && (
        <ul class="field-errors">
          {error.fields.map((field) => (
            <li key={`${field.field}:${field.message}`}>
              <code>{field.field}</code> {field.message}
            </li>
          ))}
        </ul>
      )}
      <p class="notice-meta">
        {error.status > 0 ? `HTTP ${error.status} · ` : ''}
        {error.code}
        {error.requestId ? ` · request ${error.requestId}` : ''}
      </p>
    </div>
  );
}
