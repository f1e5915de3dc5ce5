// How long this list keeps settled events (GET /webhook-retention), under the list. Loaded once: the
// policy changes through the API or the CLI (`herald webhooks retention set`), not on this screen.
import { usePolling } from '../../live/use-polling';
import { useSession } from '../../session/context';
import { retentionText } from './retention-text';

export function RetentionNote() {
  const { api, can } = useSession();
  const poll = usePolling(() => api.getRetention(), 'retention', false);
  if (!can.readEvents.allowed || !poll.data) return null;
  const { summary, exceptions } = retentionText(poll.data);
  return (
    <p class="muted" data-retention={poll.data.source}>
      {summary}
      {exceptions.length > 0 && <> Per event type: {exceptions.join(', ')}.</>}
    </p>
  );
}
