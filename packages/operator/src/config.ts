// Operator configuration from environment variables (pure apart from the injected file reader).
import { hostname } from 'node:os';

export interface OperatorConfig {
  heraldUrl: string;
  /** Returns the current API token (a token file is re-read so a rotated Secret takes effect). */
  token: () => string;
  /** Principal id of the token (`tok_…`); asked from `GET /api/v1/me` when not given. */
  principal: string | undefined;
  watchNamespaces: string[];
  leaderElection: {
    enabled: boolean;
    leaseName: string;
    leaseNamespace: string;
    identity: string;
    leaseDurationSeconds: number;
    renewDeadlineSeconds: number;
    retryPeriodSeconds: number;
  };
  resyncSeconds: number;
  workers: number;
  /** Overall reconcile rate limit of the work queue (token bucket). */
  rateLimit: { ratePerSecond: number; burst: number };
  host: string;
  port: number;
  logLevel: string;
}

export class OperatorConfigError extends Error {
  override readonly name = 'OperatorConfigError';
}

type Env = Record<string, string | undefined>;

const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
const TOKEN_FILE_REREAD_MS = 30_000;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new OperatorConfigError(`${name} must be an integer between ${min} and ${max}`);
  }
  return value;
}

function tokenSource(env: Env, readFile: (path: string) => string, nowMs: () => number): () => string {
  if (env.HERALD_TOKEN) {
    const token = env.HERALD_TOKEN.trim();
    return () => token;
  }
  const file = env.HERALD_TOKEN_FILE;
  if (!file) throw new OperatorConfigError('HERALD_TOKEN or HERALD_TOKEN_FILE is required (a Herald API token with dp:webhook_subscriber:manage)');
  const read = () => {
    const token = readFile(file).trim();
    if (!token) throw new OperatorConfigError(`HERALD_TOKEN_FILE ${file} is empty`);
    return token;
  };
  let cached = read();
  let readAt = nowMs();
  return () => {
    if (nowMs() - readAt > TOKEN_FILE_REREAD_MS) {
      try {
        cached = read();
      } catch {
        // Keep the last good token while the mounted Secret is being updated.
      }
      readAt = nowMs();
    }
    return cached;
  };
}

function defaultLeaseNamespace(env: Env, readFile: (path: string) => string): string {
  if (env.HERALD_OPERATOR_LEASE_NAMESPACE) return env.HERALD_OPERATOR_LEASE_NAMESPACE;
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return readFile(IN_CLUSTER_NAMESPACE_FILE).trim() || 'default';
  } catch {
    return 'default';
  }
}

export function loadOperatorConfig(env: Env, readFile: (path: string) => string, nowMs: () => number = Date.now): OperatorConfig {
  const heraldUrl = env.HERALD_URL;
  if (!heraldUrl) throw new OperatorConfigError('HERALD_URL is required (e.g. http://herald.herald.svc:80)');
  try {
    const url = new URL(heraldUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new OperatorConfigError('HERALD_URL must be an absolute http(s) URL');
  }
  const leaseDurationSeconds = integer(env, 'HERALD_OPERATOR_LEASE_DURATION_SECONDS', 15, 2, 300);
  const renewDeadlineSeconds = integer(env, 'HERALD_OPERATOR_RENEW_DEADLINE_SECONDS', 10, 1, 300);
  const retryPeriodSeconds = integer(env, 'HERALD_OPERATOR_RETRY_PERIOD_SECONDS', 2, 1, 60);
  if (!(retryPeriodSeconds < renewDeadlineSeconds && renewDeadlineSeconds < leaseDurationSeconds)) {
    throw new OperatorConfigError('leader election needs retry period < renew deadline < lease duration');
  }
  return {
    heraldUrl,
    token: tokenSource(env, readFile, nowMs),
    principal: env.HERALD_OPERATOR_PRINCIPAL || undefined,
    watchNamespaces: (env.HERALD_OPERATOR_WATCH_NAMESPACES ?? '').split(',').map((item) => item.trim()).filter(Boolean),
    leaderElection: {
      enabled: !['false', '0', 'no', 'off'].includes((env.HERALD_OPERATOR_LEADER_ELECTION ?? 'true').toLowerCase()),
      leaseName: env.HERALD_OPERATOR_LEASE_NAME || 'herald-operator',
      leaseNamespace: defaultLeaseNamespace(env, readFile),
      identity: env.HERALD_OPERATOR_IDENTITY || `${hostname()}_${process.pid}`,
      leaseDurationSeconds,
      renewDeadlineSeconds,
      retryPeriodSeconds,
    },
    resyncSeconds: integer(env, 'HERALD_OPERATOR_RESYNC_SECONDS', 300, 1, 86_400),
    workers: integer(env, 'HERALD_OPERATOR_WORKERS', 8, 1, 64),
    rateLimit: {
      ratePerSecond: integer(env, 'HERALD_OPERATOR_RATE_LIMIT_QPS', 50, 1, 10_000),
      burst: integer(env, 'HERALD_OPERATOR_RATE_LIMIT_BURST', 200, 1, 100_000),
    },
    host: env.HERALD_OPERATOR_HOST || '0.0.0.0',
    port: integer(env, 'HERALD_OPERATOR_PORT', 8081, 0, 65_535),
    logLevel: env.HERALD_OPERATOR_LOG_LEVEL || 'info',
  };
}
