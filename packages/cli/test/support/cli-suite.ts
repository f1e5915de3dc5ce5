// The preamble of the test files that run the built `herald` end to end: check the build, start the
// server it talks to, log a fresh config directory in to it, and stop the server at the end. Each
// call registers the file's vitest hooks, so call it once, at the top level of a test file.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestHost, type TestHost } from '../../../server/test/support/test-host.js';
import { seedConfig } from './config-fixture.js';
import { startRecordingServer, type RecordingServer } from './recording-server.js';
import { assertBuilt, runHerald, temporaryDirectory, type HeraldRun, type RunOptions } from './run-herald.js';

export interface Login {
  /** Default: the fixture's testToken. */
  readonly token?: string;
  readonly currentOrg?: string;
}

/** A config directory logged in to `url` (as `herald login` leaves it) and an empty working directory. */
export function loggedIn(url: string, login: Login = {}): RunOptions {
  const options = { configDir: join(temporaryDirectory('herald-cfg-'), 'herald'), cwd: temporaryDirectory('herald-cwd-') };
  seedConfig(options.configDir, { url, ...login });
  return options;
}

type Herald = (args: readonly string[], extra?: Partial<RunOptions>) => Promise<HeraldRun>;

export interface RecordingSuite {
  readonly server: RecordingServer;
  /** Fresh for every test. */
  readonly options: RunOptions;
  /** Runs `herald` in `options`, with `extra` laid over them. */
  readonly herald: Herald;
}

/**
 * One recording server for the file. Every test starts from nothing recorded, the server's default
 * answer and a new logged-in config directory, so no test sees what an earlier one wrote.
 */
export function recordingServerSuite(login: Omit<Login, 'token'> = {}): RecordingSuite {
  let server: RecordingServer | undefined;
  let options: RunOptions | undefined;
  beforeAll(async () => {
    assertBuilt();
    server = await startRecordingServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    started(server).reset();
    options = loggedIn(started(server).url, login);
  });
  return {
    get server() {
      return started(server);
    },
    get options() {
      return started(options);
    },
    herald: (args, extra = {}) => runHerald(args, { ...started(options), ...extra }),
  };
}

export interface HostSuite {
  readonly host: TestHost;
  /** Logged in with the host's admin token; shared by the file's tests. */
  readonly options: RunOptions;
  readonly herald: Herald;
}

/**
 * The real host (server, core, the run's FerretDB) for the whole file. The file's own beforeAll hooks
 * run after it is up, so they can add what its tests need (subscribers, receivers).
 */
export function realHostSuite(hostOptions: Parameters<typeof startTestHost>[0] = {}): HostSuite {
  let host: TestHost | undefined;
  let options: RunOptions | undefined;
  beforeAll(async () => {
    assertBuilt();
    host = await startTestHost(hostOptions);
    options = loggedIn(host.host.url, { token: host.adminToken });
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });
  return {
    get host() {
      return started(host);
    },
    get options() {
      return started(options);
    },
    herald: (args, extra = {}) => runHerald(args, { ...started(options), ...extra }),
  };
}

// The hooks set these before any test runs; reading one earlier is a mistake in the test file.
function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('read before the suite started: use it inside a test or hook');
  return value;
}
