// A host whose database connection runs through a loopback proxy in front of the run's store, so a
// test can cut the network or hold the store's answers back while the store keeps its data. The
// credentials are a JWT, so authentication itself needs no database.
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import type { HostMode } from '../../src/host.js';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy.js';
import { startTestHost, type TestHost } from './test-host.js';

export interface ProxiedHost {
  t: TestHost;
  network: TcpProxy;
  /** A JWT for org `default` with the scopes asked for. */
  token: string;
  close(): Promise<void>;
}

export async function startProxiedHost(name: string, options: { scope: string; mode?: HostMode; uriParams?: Record<string, string> }): Promise<ProxiedHost> {
  const store: TestDatabase = await openTestDatabase(name);
  const network = await startTcpProxy(store.uri);
  const proxied = new URL(network.uri);
  for (const [key, value] of Object.entries(options.uriParams ?? {})) proxied.searchParams.set(key, value);
  const uri = proxied.toString();
  const client = new MongoClient(uri);
  const database = { uri, client, db: client.db(store.dbName), dbName: store.dbName, close: async () => { await client.close(); } };
  const keys = await generateKeyPair('ES256', { extractable: true });
  const t = await startTestHost({ database, mode: options.mode, overrides: { jwt: { publicKeyPem: await exportSPKI(keys.publicKey) } } });
  const token = await new SignJWT({ org: 'default', scope: options.scope })
    .setProtectedHeader({ alg: 'ES256' })
    .setSubject('ops-user')
    .setExpirationTime('10m')
    .sign(keys.privateKey);
  return {
    t,
    network,
    token,
    async close() {
      network.restore();
      network.release();
      await Promise.race([t.close(), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      await t.database.close();
      await network.close();
      await store.close();
    },
  };
}
