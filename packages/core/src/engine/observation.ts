// The one place an attempt is observed. Every attempt reports its start and its end here, and from
// here go its trace span (shared/tracing.ts), this process's figures (stats.ts), the engine's
// counters, the attempt's log lines, and two named diagnostics channels (`node:diagnostics_channel`)
// that an embedding application may subscribe to without touching the engine:
//   herald:delivery:attempt:start  { deliveryId, eventId, eventType, orgId, subscriberId, attempt, probe, startedAt }
//   herald:delivery:attempt:end    the same, with outcome, httpStatus or errorClass, finishedAt
// A channel with no subscriber costs one check per attempt.
import diagnostics from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { EngineLogger } from '../shared/logger.js';
import { contextFromTraceparent, traceparentOf, tracer } from '../shared/tracing.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { describeError } from './describe-error.js';
import type { SendResult } from './http/sender.js';
import type { DeliveryStats } from './stats.js';

export const ATTEMPT_START_CHANNEL = 'herald:delivery:attempt:start';
export const ATTEMPT_END_CHANNEL = 'herald:delivery:attempt:end';

const startChannel = diagnostics.channel(ATTEMPT_START_CHANNEL);
const endChannel = diagnostics.channel(ATTEMPT_END_CHANNEL);

export interface AttemptStartMessage {
  deliveryId: string;
  eventId: string;
  eventType: string;
  orgId: string;
  /** The subscriber's handle, as the API names it. */
  subscriberId: string;
  attempt: number;
  /** The attempt probes an endpoint whose breaker is open. */
  probe: boolean;
  startedAt: Date;
}

/** The row's state after the attempt (PENDING: a retry is due), or INTERRUPTED by a shutdown. */
export type AttemptEnd = 'DELIVERED' | 'PENDING' | 'FAILED' | 'INTERRUPTED';

export interface AttemptEndMessage extends AttemptStartMessage {
  outcome: AttemptEnd;
  httpStatus?: number;
  errorClass?: string;
  finishedAt: Date;
}

export interface ObservedAttempt {
  /** The W3C `traceparent` to send with the request, when the engine sends one. */
  readonly traceparent: string | undefined;
  end(result: SendResult, outcome: AttemptEnd, finishedAt: Date): void;
}

export interface AttemptObserverDeps {
  logger: EngineLogger;
  traceparentHeader: boolean;
  stats?: DeliveryStats | undefined;
}

export class AttemptObserver {
  private readonly counts = { delivered: 0, failed: 0, retried: 0 };

  private readonly deps: AttemptObserverDeps;

  constructor(deps: AttemptObserverDeps) {
    this.deps = deps;
  }

  /** Deliveries of this process by how their attempts ended (rows cancelled unsent count as failed). */
  totals(): { delivered: number; failed: number; retried: number } {
    return { ...this.counts };
  }

  start(row: DeliveryDocument, probe: boolean, startedAt: Date): ObservedAttempt {
    const message: AttemptStartMessage = {
      deliveryId: row._id,
      eventId: row.eventId,
      eventType: row.eventType,
      orgId: row.orgId,
      subscriberId: row.subscriberHandle,
      attempt: row.attempts + 1,
      probe,
      startedAt,
    };
    const span = startSpan(message, row.traceparent);
    if (startChannel.hasSubscribers) startChannel.publish(message);
    return {
      traceparent: this.deps.traceparentHeader ? traceparentOf(span) : undefined,
      end: (result, outcome, finishedAt) => {
        endSpan(span, result, outcome, finishedAt);
        if (outcome !== 'INTERRUPTED') {
          const counted = outcome === 'DELIVERED' ? 'delivered' : outcome === 'FAILED' ? 'failed' : 'retried';
          this.counts[counted] += 1;
          this.deps.stats?.record(row, counted, finishedAt);
        }
        if (endChannel.hasSubscribers) {
          const detail = result.kind === 'response' ? { httpStatus: result.status } : { errorClass: result.errorClass };
          endChannel.publish({ ...message, outcome, ...detail, finishedAt } satisfies AttemptEndMessage);
        }
      },
    };
  }

  /** The row ended FAILED without an attempt: its subscriber was disabled or deleted. */
  cancelled(): void {
    this.counts.failed += 1;
  }

  /** The lease left too little time for an exchange: the row went back unattempted. */
  handedBack(row: DeliveryDocument): void {
    this.deps.logger.debug({ deliveryId: row._id }, 'lease too short to attempt safely; handed back');
  }

  /** Signing or opening a secret failed (e.g. a master key was removed); the lease will expire and the row be retried. */
  notPrepared(row: DeliveryDocument, error: unknown): void {
    this.deps.logger.error({ deliveryId: row._id, err: describeError(error) }, 'delivery attempt could not be prepared');
  }
}

/** One attempt as a span of its event's publish trace. */
function startSpan(message: AttemptStartMessage, traceparent: string | undefined): Span {
  return tracer().startSpan(
    'herald.deliver',
    {
      kind: SpanKind.CLIENT,
      startTime: message.startedAt,
      attributes: {
        'herald.delivery_id': message.deliveryId,
        'herald.event_id': message.eventId,
        'herald.event_type': message.eventType,
        'herald.subscriber_id': message.subscriberId,
        'herald.attempt': message.attempt,
        ...(message.probe ? { 'herald.probe': true } : {}),
      },
    },
    contextFromTraceparent(traceparent),
  );
}

function endSpan(span: Span, result: SendResult, outcome: AttemptEnd, finishedAt: Date): void {
  span.setAttribute('herald.outcome', outcome);
  if (result.kind === 'response') span.setAttribute('http.response.status_code', result.status);
  else span.setAttribute('error.type', result.errorClass);
  if (outcome !== 'DELIVERED') span.setStatus({ code: SpanStatusCode.ERROR, message: result.kind === 'response' ? `HTTP ${result.status}` : result.errorClass });
  span.end(finishedAt);
}
