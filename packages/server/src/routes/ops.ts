// Liveness, readiness and Prometheus metrics: unauthenticated, outside the versioned APIs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { HostMetrics, MetricSources } from '../metrics/host-metrics.js';

export interface Readiness {
  mongo: boolean;
  engine: 'running' | 'stopped';
  /** When the database does not answer: which one (its hosts, never credentials). */
  database?: string;
}

export interface OpsRouteOptions {
  readiness(): Promise<Readiness>;
  /** Whether this process is meant to run the engine (then readiness requires it running). */
  engineEnabled: boolean;
  metrics: HostMetrics;
  metricSources: MetricSources;
}

const ReadyBody = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
    mongo: Type.Boolean(),
    engine: Type.Union([Type.Literal('running'), Type.Literal('stopped'), Type.Literal('disabled')]),
    database: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const HealthBody = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('engine loop stuck')]) }, { additionalProperties: false });

export const opsRoutes: FastifyPluginAsyncTypebox<OpsRouteOptions> = async (app, options) => {
  // Liveness: the process answers, and the delivery engine here (if any) has not got stuck in one
  // step of its loop (engine/stall-watch.ts); restarting the pod is what heals that. A busy engine
  // finishes steps, and the store's state is readiness's business, so neither fails this.
  app.get(
    '/healthz',
    { schema: { hide: true, response: { 200: HealthBody, 503: HealthBody } } },
    async (_request, reply) => {
      const stuck = options.metricSources.engine()?.loop.stuck === true;
      return reply.code(stuck ? 503 : 200).send(stuck ? { status: 'engine loop stuck' as const } : { status: 'ok' as const });
    },
  );

  app.get('/readyz', { schema: { hide: true, response: { 200: ReadyBody, 503: ReadyBody } } }, async (_request, reply) => {
    const state = await options.readiness().catch((): Readiness => ({ mongo: false, engine: 'stopped' }));
    const engine = options.engineEnabled ? state.engine : 'disabled';
    const ready = state.mongo && (engine === 'running' || engine === 'disabled');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', mongo: state.mongo, engine, ...(state.database && !state.mongo ? { database: state.database } : {}) });
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = await options.metrics.render(options.metricSources);
    return reply.type(options.metrics.contentType).send(text);
  });
};
