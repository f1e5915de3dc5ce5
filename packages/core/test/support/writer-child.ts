// Drives writer-process.ts children: a second Herald in its own Node process, so the concurrency
// invariants are checked across processes and not only across two clients of one process.
//
// Each command is sent in two steps, so the caller can start its own writes at the moment the child
// starts its: `arm` hands the child the command and resolves when it is ready to run it; `go` on the
// result lets it run. The child's input closing ends it (stop(), or this process dying), so a child
// never outlives its test file.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const here = import.meta.dirname;
const repoRoot = resolve(here, '../../../..');
/** Loads our TypeScript sources unbuilt (the engine tests' hook, see its comment). */
const registerTs = resolve(here, '../engine/support/register-ts.mjs');
/** Node 24 from the `node` devDependency: the runner's own binary (plain `node` on PATH may be older). */
const nodeBinary = process.execPath;

export interface SubscriberToCreate {
  id: string;
  displayName: string;
  targetUrl: string;
  events: string[];
}

/** What the child can be asked to do; each runs its operations at once (Promise.all). */
export type WriterCommand =
  | { op: 'publish'; orgId: string; eventType: string; aggregateId: string; data: Record<string, unknown>; idempotencyKey?: string; count: number }
  | { op: 'create'; orgId: string; subscribers: SubscriberToCreate[] }
  | { op: 'update'; orgId: string; handle: string; displayNames: string[] };

export interface Published { eventId: string; created: boolean }
/** One update: answered, or refused with the error's code (a 409 is `CONFLICT`). */
export type UpdateOutcome = { displayName: string; answered: true } | { displayName: string; answered: false; code: string | undefined; message: string };

export type WriterResult<C extends WriterCommand> =
  C extends { op: 'publish' } ? Published[] : C extends { op: 'create' } ? string[] : C extends { op: 'update' } ? UpdateOutcome[] : never;

/** A result with when its operations ran (wall clock, ms), to tell whether the two sides overlapped. */
export interface Timed<T> { value: T; startedAt: number; endedAt: number }

export type WriterMessage =
  | { ready: number }
  | { id: number; armed: true }
  | { id: number; result: unknown; startedAt: number; endedAt: number }
  | { id: number; error: { message: string; code: string | undefined } };

export type ParentMessage = { id: number; command: WriterCommand } | { id: number; go: true };

export interface Armed<C extends WriterCommand> {
  /** Lets the child run the command; resolves with its result, rejects with its error. */
  go(): Promise<Timed<WriterResult<C>>>;
}

export interface WriterChild {
  pid: number | undefined;
  /** Resolves once the child's Herald is open. */
  ready: Promise<void>;
  arm<C extends WriterCommand>(command: C): Promise<Armed<C>>;
  /** Ends the child: its input is closed so it closes its Herald; SIGKILL if it has not exited in 10 s. */
  stop(): Promise<void>;
  stderr(): string;
}

export interface WriterEnv {
  MONGO_URI: string;
  DB_NAME: string;
  MASTER_KEY: string;
}

interface Waiting {
  resolve(message: WriterMessage): void;
  reject(error: Error): void;
}

export function spawnWriter(env: WriterEnv): WriterChild {
  const child = spawn(
    nodeBinary,
    ['--import', registerTs, '--conditions=herald-source', '--no-warnings', resolve(here, 'writer-process.ts')],
    { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
  // The child's stdin may be closed under a write when it dies; the exit below reports that.
  child.stdin.on('error', () => undefined);

  let markReady: () => void = () => undefined;
  let rejectReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolveReady, reject) => {
    markReady = resolveReady;
    rejectReady = reject;
  });
  // Nobody may be awaiting `ready` when the child dies (between tests); the exit is reported to the next caller.
  ready.catch(() => undefined);

  // Answers awaited, by command id: the child saying it is armed, then its result.
  const armed = new Map<number, Waiting>();
  const running = new Map<number, Waiting>();
  let exitedWith: string | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exitedWith = `writer process exited (${code ?? signal}): ${errors.slice(-2000)}`;
      // Whatever still waits on the child fails now rather than at the test's timeout.
      for (const waiting of [...armed.values(), ...running.values()]) waiting.reject(new Error(exitedWith));
      armed.clear();
      running.clear();
      rejectReady(new Error(exitedWith));
      resolveExit();
    });
  });

  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as WriterMessage;
    if ('ready' in message) return markReady();
    const waiting = 'armed' in message ? armed : running;
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    entry?.resolve(message);
  });

  const send = (message: ParentMessage): void => { child.stdin.write(`${JSON.stringify(message)}\n`); };
  const answer = (table: Map<number, Waiting>, id: number): Promise<WriterMessage> => {
    if (exitedWith) return Promise.reject(new Error(exitedWith));
    return new Promise((resolveMessage, reject) => table.set(id, { resolve: resolveMessage, reject }));
  };

  let nextId = 0;
  return {
    pid: child.pid,
    ready,
    async arm<C extends WriterCommand>(command: C): Promise<Armed<C>> {
      const id = (nextId += 1);
      const isArmed = answer(armed, id);
      send({ id, command });
      await isArmed;
      return {
        async go() {
          const done = answer(running, id);
          send({ id, go: true });
          const message = await done;
          if ('error' in message) throw Object.assign(new Error(`writer process: ${message.error.message}`), { code: message.error.code });
          if (!('result' in message)) throw new Error(`writer process: unexpected answer ${JSON.stringify(message)}`);
          return { value: message.result as WriterResult<C>, startedAt: message.startedAt, endedAt: message.endedAt };
        },
      };
    },
    async stop() {
      if (exitedWith) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    stderr: () => errors,
  };
}
