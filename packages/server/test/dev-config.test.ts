// `make up` starts the host with scripts/dev-config.json: it must load, and every example in its
// catalog must publish, so `herald webhooks trigger <type>` works on the dev stack.
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const devConfig = resolve(import.meta.dirname, '../../../scripts/dev-config.json');
const { eventTypes } = loadConfig({ env: { HERALD_CONFIG: devConfig }, overrides: { mongodbUri: 'mongodb://127.0.0.1:1/' } });
let t: TestHost;

beforeAll(async () => {
  t = await startTestHost({ mode: 'api-only', overrides: { eventTypes } });
});
afterAll(async () => {
  await t?.close();
});

it('describes every type and has an example for each, apikey.generated among them', () => {
  expect(eventTypes.map((definition) => definition.type)).toContain('apikey.generated');
  for (const definition of eventTypes) {
    expect(definition.description, definition.type).toBeTypeOf('string');
    expect(definition.example, definition.type).toBeTypeOf('object');
  }
});

it.each(eventTypes.map((definition) => [definition.type, definition.example] as const))('the example of %s publishes', async (eventType, data) => {
  const published = await t.api.post('/api/v0.9/webhook-events', { eventType, aggregateId: 'dev-config-test', data });
  expect(published.status, published.text).toBe(201);
});

it('the README\'s and docs\' sample payloads of apikey.generated still publish under its schema', async () => {
  for (const data of [{ name: 'ci' }, { name: 'ci', token: 's3cr3t' }]) {
    expect((await t.api.post('/api/v0.9/webhook-events', { eventType: 'apikey.generated', aggregateId: 'k1', data })).status).toBe(201);
  }
});
