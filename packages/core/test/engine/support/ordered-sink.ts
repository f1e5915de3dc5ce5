// A receiver for per-key ordering tests: answers each request as `decide` says (after `delayMs`),
// and records, per aggregate, every sequence number in the order the requests arrived and whether
// two requests of one aggregate were ever open at once.
import type { SinkHandler } from './sink.js';

export interface OrderLog {
  /** Per aggregateId, the `sequence` of each request in arrival order (retries repeat a number). */
  arrivals: Map<string, number[]>;
  /** Per aggregateId, the numbers answered 2xx, in order. */
  delivered: Map<string, number[]>;
  /** Requests that arrived while another of the same aggregate was still open. */
  overlaps: string[];
  /** Requests without a `sequence` in the body. */
  unsequenced: number;
}

export function orderedHandler(decide: (aggregateId: string, sequence: number) => number, delayMs = 3): { handler: SinkHandler; log: OrderLog } {
  const log: OrderLog = { arrivals: new Map(), delivered: new Map(), overlaps: [], unsequenced: 0 };
  const open = new Map<string, number>();
  const handler: SinkHandler = (request, response) => {
    const body = JSON.parse(request.body.toString()) as { aggregateId: string; sequence?: number };
    const { aggregateId, sequence } = body;
    if (sequence === undefined) {
      log.unsequenced += 1;
      response.writeHead(204).end();
      return;
    }
    if ((open.get(aggregateId) ?? 0) > 0) log.overlaps.push(`${aggregateId}#${sequence}`);
    open.set(aggregateId, (open.get(aggregateId) ?? 0) + 1);
    log.arrivals.set(aggregateId, [...(log.arrivals.get(aggregateId) ?? []), sequence]);
    const status = decide(aggregateId, sequence);
    setTimeout(() => {
      // Counted closed before the answer leaves: the next request of the key can only follow it.
      open.set(aggregateId, open.get(aggregateId)! - 1);
      if (status >= 200 && status < 300) log.delivered.set(aggregateId, [...(log.delivered.get(aggregateId) ?? []), sequence]);
      response.writeHead(status).end();
    }, delayMs);
  };
  return { handler, log };
}

/** Numbers that arrive out of order: a number lower than one that arrived before it for the same key. */
export function outOfOrder(arrivals: ReadonlyMap<string, readonly number[]>): string[] {
  const found: string[] = [];
  for (const [key, numbers] of arrivals) {
    numbers.forEach((number, index) => {
      if (index > 0 && number < numbers[index - 1]!) found.push(`${key}: ${numbers.slice(0, index + 1).join(',')}`);
    });
  }
  return found;
}
