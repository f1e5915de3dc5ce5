// OpenTelemetry traces through the OpenTelemetry API only: without an SDK registered by the host
// (or the embedding app) every call here is a no-op. A publish is a span; its W3C `traceparent` is
// stored on the event and its rows, so each attempt — whenever and wherever it runs — is a span of
// the same trace, a child of the publish.
import { ROOT_CONTEXT, trace, TraceFlags, type Context, type Span } from '@opentelemetry/api';

export const tracer = () => trace.getTracer('@herald/core');

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span's W3C traceparent, when it belongs to a real trace (an SDK is recording, or a caller's trace flows through). */
export function traceparentOf(span: Span): string | undefined {
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!trace.isSpanContextValid(span.spanContext())) return undefined;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A context whose parent is the span a traceparent names (root when absent or malformed). */
export function contextFromTraceparent(traceparent: string | undefined, base: Context = ROOT_CONTEXT): Context {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return base;
  return trace.setSpanContext(base, { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true });
}
