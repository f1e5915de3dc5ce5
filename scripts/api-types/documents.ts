// The OpenAPI documents the host serves, rendered in-process: the app is built as the host builds
// it, with deps that nothing reaches (serving /openapi.json touches no store, token or engine), and
// asked for each document as a client would ask for it. No database, no listening socket.
import { buildApp, createLogger, loadConfig, MANAGEMENT_API_PREFIX, WEBHOOK_API_PREFIX, type AppDeps } from '@herald/server';

export const API_DOCUMENTS = {
  webhooks: WEBHOOK_API_PREFIX,
  management: MANAGEMENT_API_PREFIX,
} as const;

export type ApiName = keyof typeof API_DOCUMENTS;

/** A dep this module's premise says is never used: any other member it is asked for throws, naming it. */
function unreachable<T>(name: string, members: Record<string, unknown> = {}): T {
  return new Proxy(members, {
    get(target, property) {
      if (typeof property === 'string' && property in target) return target[property];
      if (property === 'then') return undefined;
      throw new Error(`api-types: rendering the OpenAPI documents reached deps.${name}.${String(property)}`);
    },
  }) as T;
}

export async function servedDocuments(): Promise<Record<ApiName, object>> {
  const config = loadConfig({ env: {}, overrides: { mongodbUri: 'mongodb://127.0.0.1:1/unused' } });
  const deps: AppDeps = {
    // The store guard asks how long the store has been silent; it never is here.
    herald: unreachable('herald', { storeSilentForMs: () => 0 }),
    tokens: unreachable('tokens'),
    projects: unreachable('projects'),
    portal: unreachable('portal'),
    logger: createLogger('silent'),
    metrics: unreachable('metrics', { instrument: () => undefined }),
    metricSources: unreachable('metricSources'),
    readiness: () => Promise.reject(new Error('api-types: readiness is never asked')),
  };
  const app = await buildApp(config, deps, { api: true, engineEnabled: false });
  try {
    const documents = {} as Record<ApiName, object>;
    for (const [name, prefix] of Object.entries(API_DOCUMENTS) as Array<[ApiName, string]>) {
      const response = await app.inject({ method: 'GET', url: `${prefix}/openapi.json` });
      if (response.statusCode !== 200) throw new Error(`api-types: GET ${prefix}/openapi.json answered ${response.statusCode}: ${response.body}`);
      documents[name] = response.json<object>();
    }
    return documents;
  } finally {
    await app.close();
  }
}
