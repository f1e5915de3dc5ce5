// A maintenance run that ends well while the store is away (its reads came before the cut) does not
// end the outage's report: the jobs say "run again" only once the store answers, and the scheduler's
// failures meanwhile stay one log line.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy.js';
import { createHerald, type Herald } from '../../src/index.js';
import { createDeliveryEngine } from '../../src/engine/index.js';
import { FAST_DELIVERY } from './support/harness.js';

let database: TestDatabase;
let network: TcpProxy;
let herald: Herald;
const logs: Array<{ level: string; msg: string }> = [];
const record = (level: string) => (_fields: object, msg: string) => { logs.push({ level, msg }); };
const failureLines = () => logs.filter((line) => line.msg === 'job scheduler error' || line.msg === 'maintenance job failed');

// The fan-out completion job's body, held once it has begun until the test lets it end well.
let bodyEntered: () => void = () => undefined;
const entered = new Promise<void>((resolve) => (bodyEntered = resolve));
let endBody: () => void = () => undefined;
const ended = new Promise<void>((resolve) => (endBody = resolve));

beforeAll(async () => {
  database = await openTestDatabase('outage_report');
  network = await startTcpProxy(database.uri);
  const uri = new URL(network.uri);
  uri.searchParams.set('serverSelectionTimeoutMS', '1000');
  herald = await createHerald({
    mongo: { uri: uri.toString(), dbName: database.dbName },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: FAST_DELIVERY,
    engineFactory: (deps) =>
      createDeliveryEngine({
        ...deps,
        completePendingFanOuts: async () => {
          bodyEntered();
          await ended;
          return 0;
        },
      }),
    logger: { debug: () => undefined, info: record('info'), warn: record('warn'), error: record('error') },
  });
  await herald.start();
});
afterAll(async () => {
  endBody();
  await herald?.close();
  await network?.close();
  await database?.close();
});

test('a run that ends well during the outage does not end its report; the store answering does', async () => {
  await entered;
  network.cut();
  await expect.poll(() => failureLines().length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
  endBody();
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the scheduler keeps failing meanwhile
  expect(logs.filter((line) => line.msg === 'maintenance jobs run again')).toEqual([]);
  expect(failureLines()).toHaveLength(1);

  network.restore();
  await expect.poll(() => logs.filter((line) => line.msg === 'maintenance jobs run again').length, { timeout: 15_000, interval: 200 }).toBe(1);
}, 40_000);
