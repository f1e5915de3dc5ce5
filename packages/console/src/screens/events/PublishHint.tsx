// What to do when there are no events yet: the curl that publishes one, ready to paste.
export function PublishHint() {
  const origin = window.location.origin;
  const command = [
    `curl -s ${origin}/api/v0.9/webhook-events \\`,
    `  -H "Authorization: Bearer $(cat .data/bootstrap-token)" -H 'content-type: application/json' \\`,
    `  -d '{"eventType":"order.created","aggregateId":"order-1","data":{"total":42}}'`,
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
    </div>
  );
}
