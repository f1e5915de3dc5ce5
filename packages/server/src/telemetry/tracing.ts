// OpenTelemetry tracing for the host, off unless the standard OTEL_* variables ask for it: an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
// OTEL_TRACES_EXPORTER=otlp; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off. The
// exporter reads the rest of its settings (headers, timeout, protocol) from those variables itself.
// Core emits its spans through the OpenTelemetry API; this registers the SDK that records them.
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return exporters.includes('otlp') || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** One provider per process: it is registered globally, and every host in the process shares it. */
let started: { tracing: Tracing; users: number } | undefined;

export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (!tracingRequested(env)) return undefined;
  if (!started) {
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'herald-server' }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    });
    provider.register();
    started = { tracing: { shutdown: () => provider.shutdown() }, users: 0 };
  }
  const current = started;
  current.users += 1;
  let released = false;
  return {
    async shutdown() {
      if (released) return;
      released = true;
      current.users -= 1;
      // Flushed at each host's close; shut down with the last one.
      if (current.users === 0) {
        started = undefined;
        await current.tracing.shutdown();
      }
    },
  };
}
