/* global Buffer, setTimeout, fetch, AbortSignal, URL, console */
// Runs in the cluster's sink pod (test/cluster/chart.test.ts mounts it from a ConfigMap), on the
// Herald image's Node. Two roles, both inside the cluster:
//   receiver: every POST is recorded (the headers that sign it and the raw body) and answered 204;
//   publisher: POST /publish sends events to Herald through its Service, at a bounded rate and
//   count, so a publish never leaves the cluster's network.
// The test reads what happened with GET /records and GET /stats through `kubectl exec`.
import { createServer } from 'node:http';

const records = [];
const publishRuns = new Map();

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function json(response, status, value) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const event = (prefix, index) => ({ eventType: 'order.created', aggregateType: 'order', aggregateId: `${prefix}-${index}`, data: { n: index } });

/**
 * One request of the run: the event alone (`POST /webhook-events`, its key in the header) or a
 * group of them (`POST /webhook-events/batch`, a key per item). Answers the items still to send:
 * none once each is accepted or refused for good, the rest after a 5xx (per item or whole).
 */
async function publishOnce(run, { url, token, prefix }, indexes) {
  const batch = indexes.length > 1;
  const response = await fetch(`${url}/api/v0.9/webhook-events${batch ? '/batch' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(batch ? {} : { 'idempotency-key': `${prefix}-${indexes[0]}` }) },
    body: JSON.stringify(batch ? { events: indexes.map((index) => ({ ...event(prefix, index), idempotencyKey: `${prefix}-${index}` })) } : event(prefix, indexes[0])),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status >= 500) return indexes;
  if (response.status >= 300) {
    run.failed += indexes.length;
    run.errors.push(`${response.status} ${text.slice(0, 200)}`);
    return [];
  }
  const answer = JSON.parse(text);
  const results = batch ? answer.list : [{ index: 0, eventId: answer.id ?? answer.eventId }];
  const again = [];
  for (const result of results) {
    if (result.eventId) {
      run.accepted++;
      run.ids.push(result.eventId);
    } else if (result.error.code === 'SERVICE_UNAVAILABLE' || result.error.code === 'INTERNAL_SERVER_ERROR') {
      again.push(indexes[result.index]);
    } else {
      run.failed++;
      run.errors.push(JSON.stringify(result.error).slice(0, 200));
    }
  }
  return again;
}

/**
 * Publishes `count` events at `perSecond`, each with a unique aggregateId, `batch` per request;
 * bounded in time too. At most 32 requests in flight.
 */
async function publishRun(id, options) {
  const { count, perSecond, maxSeconds } = options;
  const batch = options.batch ?? 1;
  const run = { accepted: 0, failed: 0, errors: [], done: false, ids: [] };
  publishRuns.set(id, run);
  const started = Date.now();
  const deadline = started + maxSeconds * 1000;
  const inFlight = new Set();
  for (let first = 0; first < count && Date.now() < deadline; first += batch) {
    const due = started + (first * 1000) / perSecond;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    const attempt = (async () => {
      // Retried on a refused connection or a 5xx (a pod going away during an upgrade): with the same
      // idempotency keys, so a retry never makes a second event.
      let pending = Array.from({ length: Math.min(batch, count - first) }, (_, k) => first + k);
      for (let tries = 0; tries < 20 && Date.now() < deadline && pending.length > 0; tries++) {
        try {
          pending = await publishOnce(run, options, pending);
          if (pending.length === 0) return;
        } catch (error) {
          if (tries === 19) run.errors.push(String(error));
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      run.failed += pending.length;
    })();
    inFlight.add(attempt);
    attempt.finally(() => inFlight.delete(attempt));
    if (inFlight.size >= 32) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  // The run's own pace, and what the subscriber had received when it ended: the backlog left to drain.
  run.endedAt = Date.now();
  run.seconds = (run.endedAt - started) / 1000;
  run.receivedWhenDone = records.filter((record) => record.path === `/load-${options.prefix}`).length;
  run.done = true;
}

createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://sink').pathname;
  if (request.method === 'GET' && path === '/healthz') return json(response, 200, { ok: true });
  if (request.method === 'GET' && path === '/records') return json(response, 200, records.filter((r) => r.path === '/hook'));
  if (request.method === 'GET' && path.startsWith('/stats/')) {
    // Deliveries to one target path: how many, how many distinct events, and from which pod.
    const target = `/${path.slice('/stats/'.length)}`;
    const byEvent = new Map();
    const byPeer = {};
    let received = 0;
    let lastAt = 0;
    for (const record of records) {
      if (record.path !== target) continue;
      received++;
      lastAt = Math.max(lastAt, record.at);
      const id = JSON.parse(record.body).data?.n;
      byEvent.set(id, (byEvent.get(id) ?? 0) + 1);
      byPeer[record.peer] = (byPeer[record.peer] ?? 0) + 1;
    }
    return json(response, 200, { received, distinct: byEvent.size, duplicates: received - byEvent.size, byPeer, lastAt });
  }
  if (request.method === 'GET' && path.startsWith('/publish/')) {
    const run = publishRuns.get(path.slice('/publish/'.length));
    return run ? json(response, 200, { ...run, ids: undefined }) : json(response, 404, {});
  }
  const body = await readBody(request);
  if (request.method === 'POST' && path === '/publish') {
    const options = JSON.parse(body);
    void publishRun(options.prefix, options);
    return json(response, 202, { started: options.prefix });
  }
  if (request.method === 'DELETE' && path === '/records') {
    records.length = 0;
    return json(response, 200, {});
  }
  if (request.method === 'POST') {
    const pick = (name) => request.headers[name];
    records.push({
      path,
      at: Date.now(),
      // The sending pod's address (pod-to-Service traffic on one node is not masqueraded).
      peer: (request.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
      headers: {
        'webhook-id': pick('webhook-id'),
        'webhook-timestamp': pick('webhook-timestamp'),
        'webhook-signature': pick('webhook-signature'),
        'x-api-portal-signature': pick('x-api-portal-signature'),
      },
      body,
    });
    response.writeHead(204).end();
    return;
  }
  json(response, 404, {});
}).listen(8080, () => console.log('sink listening on 8080'));
