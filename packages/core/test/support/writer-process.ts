// A second Herald in a process of its own, for the cross-process concurrency tests
// (concurrency-processes.test.ts; writer-child.ts spawns it and speaks its protocol). Run with
//   node --import ../engine/support/register-ts.mjs --conditions=herald-source writer-process.ts
// Env: MONGO_URI, DB_NAME, MASTER_KEY (base64, the test's key, so both processes read each
// other's sealed values).
//
// Reads JSON lines on stdin, writes JSON lines on stdout (WriterMessage): `{"ready": pid}` once
// open; for each `{id, command}` it answers `{id, armed: true}` and waits for `{id, go: true}`,
// then runs the command's operations all at once and answers `{id, result, startedAt, endedAt}`
// (or `{id, error}`). It exits when its stdin ends, so it never outlives the test that spawned it.
import { MongoClient } from 'mongodb';
import { createInterface } from 'node:readline';
import { createHerald, type Scope } from '../../src/index.js';
// The same engine stand-in as the in-process tests: rows stay PENDING and nothing is delivered, so
// the rows the test counts are exactly the ones publishing wrote.
import { recordingEngine } from '../helpers.js';
import type { ParentMessage, UpdateOutcome, WriterCommand, WriterMessage } from './writer-child.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const client = new MongoClient(env('MONGO_URI'));
await client.connect();
const herald = await createHerald({
  mongo: { db: client.db(env('DB_NAME')) },
  masterKeys: { current: 'k1', keys: { k1: env('MASTER_KEY') } },
  engineFactory: () => recordingEngine(),
});

const say = (message: WriterMessage): void => { process.stdout.write(`${JSON.stringify(message)}\n`); };
const now = (): number => performance.timeOrigin + performance.now();

async function run(command: WriterCommand): Promise<unknown> {
  const scope: Scope = { orgId: command.orgId };
  switch (command.op) {
    case 'publish': {
      const options = command.idempotencyKey === undefined ? {} : { idempotencyKey: command.idempotencyKey };
      const results = await Promise.all(
        Array.from({ length: command.count }, () =>
          herald.events.publish(scope, { eventType: command.eventType, aggregateId: command.aggregateId, data: command.data }, options),
        ),
      );
      return results.map((result) => ({ eventId: result.event.eventId, created: result.created }));
    }
    case 'create': {
      const created = await Promise.all(command.subscribers.map((subscriber) => herald.subscribers.create(scope, subscriber)));
      return created.map((subscriber) => subscriber.id);
    }
    case 'update': {
      // Refusals are part of the answer, not a failure: the test counts them (409 is allowed).
      const results = await Promise.allSettled(command.displayNames.map((displayName) => herald.subscribers.update(scope, command.handle, { displayName })));
      return results.map((result, index): UpdateOutcome => {
        const displayName = command.displayNames[index]!;
        if (result.status === 'fulfilled') return { displayName, answered: true };
        const error = result.reason as { code?: string; message?: string };
        return { displayName, answered: false, code: error.code, message: String(error.message ?? error) };
      });
    }
  }
}

const waiting = new Map<number, WriterCommand>();
const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const message = JSON.parse(line) as ParentMessage;
  if ('command' in message) {
    waiting.set(message.id, message.command);
    say({ id: message.id, armed: true });
    return;
  }
  const command = waiting.get(message.id);
  waiting.delete(message.id);
  if (!command) return say({ id: message.id, error: { message: `no command ${message.id} armed`, code: undefined } });
  const startedAt = now();
  run(command).then(
    (result) => say({ id: message.id, result, startedAt, endedAt: now() }),
    (error: unknown) => {
      const { message: text, code } = error as { message?: string; code?: string };
      say({ id: message.id, error: { message: String(text ?? error), code } });
    },
  );
});
// The parent closes stdin to stop it, and stdin also ends if the parent dies.
input.on('close', () => {
  void herald.close().then(() => client.close()).finally(() => process.exit(0));
});

say({ ready: process.pid });
