// The egress proxies an operator configures (delivery.egressProxy, delivery.egressProxies) and
// which one a subscriber's `egressProxy` setting selects. Pure.
//
// A subscriber names a proxy rather than giving a URL: the proxy's address is trusted (it is not
// checked by the SSRF guard) and its URL may carry credentials, so only the operator may set it.
import { EGRESS_PROXY_NAME_PATTERN } from '../../schemas/subscribers.js';

/** `none` sends direct; the host's default is the field's absence, so it needs no name. */
export const DIRECT = 'none';
/** The default proxy's own name, reserved so that it always means that one (the CLI's `--egress-proxy default`). */
const DEFAULT = 'default';
const PROXY_NAME = new RegExp(EGRESS_PROXY_NAME_PATTERN);

export interface EgressProxy {
  /** The configured name (`default` for delivery.egressProxy). */
  name: string;
  host: string;
  port: number;
  /** `host:port`: what messages and logs may say about the proxy (never its credentials). */
  display: string;
  /** The Proxy-Authorization header value when the URL carries credentials. */
  authorization?: string;
}

export interface EgressProxyOptions {
  /** URL of the proxy every delivery goes through unless its subscriber says otherwise. */
  egressProxy?: string | undefined;
  /** Proxies a subscriber may name in `egressProxy`. */
  egressProxies?: Readonly<Record<string, string>> | undefined;
}

export interface EgressProxies {
  readonly defaultProxy: EgressProxy | undefined;
  /** The names a subscriber may choose, `none` included. */
  readonly names: ReadonlySet<string>;
  /**
   * The route of a subscriber's setting: a proxy, direct (undefined), or — for a name this
   * process does not know (configurations differ between replicas) — an error message.
   */
  route(setting: string | undefined): { proxy: EgressProxy | undefined } | { unknown: string };
}

/**
 * `http://[user:password@]host:port`. The message names the setting, never the URL, which may
 * hold a password. Throws RangeError (a configuration error at startup).
 */
export function parseProxyUrl(text: string, setting: string, name: string): EgressProxy {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`${setting} is not a URL (expected http://[user:password@]host:port)`);
  }
  if (url.protocol === 'https:') {
    throw new RangeError(`${setting}: https:// proxies are not supported; use http:// (deliveries to https receivers stay TLS end to end through the tunnel)`);
  }
  if (url.protocol !== 'http:') throw new RangeError(`${setting} must be an http:// URL, not ${url.protocol}`);
  if (url.hostname === '') throw new RangeError(`${setting} must name a host`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new RangeError(`${setting} must be http://[user:password@]host:port, without a path, query or fragment`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? 80 : Number(url.port);
  const display = `${url.hostname}:${port}`;
  const proxy: EgressProxy = { name, host, port, display };
  if (url.username !== '' || url.password !== '') {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw new RangeError(`${setting}: the user or password is not valid percent-encoding`);
    }
    proxy.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  }
  return proxy;
}

export function createEgressProxies(options: EgressProxyOptions): EgressProxies {
  const defaultProxy = options.egressProxy === undefined || options.egressProxy === '' ? undefined : parseProxyUrl(options.egressProxy, 'delivery.egressProxy', DEFAULT);
  const named = new Map<string, EgressProxy>();
  for (const [name, url] of Object.entries(options.egressProxies ?? {})) {
    if (!PROXY_NAME.test(name) || name === DIRECT || name === DEFAULT) {
      throw new RangeError(`delivery.egressProxies: "${name}" is not a proxy name (1–63 of a-z, 0-9, "-"; "${DIRECT}" and "${DEFAULT}" are reserved)`);
    }
    named.set(name, parseProxyUrl(url, `delivery.egressProxies["${name}"]`, name));
  }
  return {
    defaultProxy,
    names: new Set([DIRECT, ...named.keys()]),
    route(setting) {
      if (setting === undefined) return { proxy: defaultProxy };
      if (setting === DIRECT) return { proxy: undefined };
      const proxy = named.get(setting);
      return proxy ? { proxy } : { unknown: `no egress proxy named "${setting}" is configured on this delivery worker` };
    },
  };
}
