// What to do when there are no events yet: the curl that publishes one, ready to paste, and the
// batch forms for many at once.
export function PublishHint() {
  const origin = window.location.origin;
  const auth = `-H "Authorization: Bearer $(cat .data/bootstrap-token)" -H 'content-type: application/json'`;
  const command = [
    `curl -s ${origin}/api/v0.9/webhook-events \\`,
    `  ${auth} \\`,
    `  -d '{"eventType":"order.created","aggregateId":"order-1","data":{"total":42}}'`,
  ].join('\n');
  const batch = [
    `curl -s ${origin}/api/v0.9/webhook-events/batch \\`,
    `  ${auth} \\`,
    `  -d '{"events":[{"eventType":"order.created","aggregateId":"order-2","data":{"total":7}},{"eventType":"order.paid","aggregateId":"order-1","data":{}}]}'`,
    '',
    '# or a file with one event per line, sent in batches:',
    'herald webhooks events send --file events.ndjson',
  ].join('\n');
  return (
    <div class="empty">
      <h2>No events yet</h2>
      <p>
        Events appear here as your application publishes them, newest first. Publish a first one from a shell (the token needs the{' '}
        <code>dp:event:publish</code> scope); it is delivered to every enabled subscriber whose patterns match its type:
      </p>
      <pre class="code" tabIndex={0} aria-label="curl command that publishes an event">
        <code>{command}</code>
      </pre>
      <p>
        Many at once: up to 1,000 events per request, each published or refused on its own, with one result per event in order.
      </p>
      <pre class="code" tabIndex={0} aria-label="commands that publish many events at once">
        <code>{batch}</code>
      </pre>
    </div>
  );
}
