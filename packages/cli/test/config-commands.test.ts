// login/logout, instances, org, config and link, run as the real executable.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './support/recording-server.js';
import { assertBuilt, runHerald, temporaryDirectory, type RunOptions } from './support/run-herald.js';

const goodToken = 'hrd_good_token_91b7';

function orgsEndpoint(request: RecordedRequest) {
  if (request.headers.authorization !== `Bearer ${goodToken}`) {
    return { status: 401, headers: { 'content-type': 'application/json' }, body: '{"status":"error","code":"UNAUTHORIZED","message":"invalid token"}' };
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"list":[{"id":"acme"}],"count":1,"pagination":{"total":1,"limit":20,"offset":0}}' };
}

let server: RecordingServer;
let second: RecordingServer;
let options: RunOptions;

beforeAll(async () => {
  assertBuilt();
  server = await startRecordingServer();
  second = await startRecordingServer();
});
afterAll(async () => {
  await server.close();
  await second.close();
});
beforeEach(() => {
  for (const each of [server, second]) {
    each.requests.length = 0;
    each.respond(orgsEndpoint);
  }
  options = { configDir: join(temporaryDirectory('herald-cfg-'), 'herald'), cwd: temporaryDirectory('herald-cwd-') };
});

const herald = (args: readonly string[], extra: Partial<RunOptions> = {}) => runHerald(args, { ...options, ...extra });
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

describe('herald login', () => {
  it('checks the token with GET /api/v1/orgs, then saves it in a 0600 file inside a 0700 directory', async () => {
    const run = await herald(['login', '--url', `${server.url}/`, '--with-token'], { stdin: `${goodToken}\n` });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Logged in to ${server.url}.`);
    expect(run.stderr + run.text).not.toContain(goodToken);
    expect(server.requests.map((request) => [request.method, request.url, request.headers.authorization])).toStrictEqual([['GET', '/api/v1/orgs', `Bearer ${goodToken}`]]);

    const credentials = join(options.configDir, 'credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(statSync(options.configDir).mode & 0o777).toBe(0o700);
    expect(readJson(credentials)).toStrictEqual({ tokens: { [server.url]: goodToken } });
    expect(readFileSync(join(options.configDir, 'config.json'), 'utf8')).not.toContain(goodToken);
    // The instance serves one organization, which becomes the active one.
    expect(readJson(join(options.configDir, 'config.json'))).toMatchObject({ current_instance: server.url, current_org: 'acme' });

    const api = await herald(['api', '/orgs/{org}']);
    expect(api.code).toBe(0);
    expect(server.requests[1]?.url).toBe('/api/v1/orgs/acme');
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${goodToken}`);
  });

  it('refuses a token the instance rejects and saves nothing', async () => {
    const run = await herald(['login', '--url', server.url, '--with-token'], { stdin: 'wrong' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${server.url} did not accept the token: HTTP 401 UNAUTHORIZED: invalid token`);
    expect(existsSync(join(options.configDir, 'credentials.json'))).toBe(false);
  });

  it.each([
    ['not-a-url', 'not a URL'],
    ['ftp://example.com', 'only http and https'],
    ['http://user:pw@127.0.0.1:1', 'credentials in the URL are not allowed'],
  ])('rejects the invalid URL %j before sending anything', async (url, reason) => {
    const run = await herald(['login', '--url', url, '--with-token'], { stdin: goodToken });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`invalid instance URL "${url}": ${reason}`);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(options.configDir)).toBe(false);
  });

  it('works without a terminal from HERALD_TOKEN, and explains what to do when there is no token at all', async () => {
    const fromEnv = await herald(['login', '--url', server.url], { env: { HERALD_TOKEN: goodToken } });
    expect(fromEnv.code).toBe(0);
    const none = await herald(['login', '--url', server.url]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no token given: pipe it on standard input with --with-token');
  });

  it('logout forgets the token; the next request explains how to log in', async () => {
    await herald(['login', '--url', server.url, '--with-token'], { stdin: goodToken });
    const logout = await herald(['logout']);
    expect(logout.code).toBe(0);
    expect(readJson(join(options.configDir, 'credentials.json'))).toStrictEqual({ tokens: {} });
    const api = await herald(['api', '/orgs']);
    expect(api.code).toBe(3);
    expect(api.stderr).toContain(`not logged in to ${server.url}: run 'herald login --url ${server.url}'`);
    expect((await herald(['logout'])).code).toBe(3);
  });

  it('honours XDG_CONFIG_HOME when HERALD_CONFIG_DIR is not set', async () => {
    const xdg = temporaryDirectory('herald-xdg-');
    const run = await herald(['login', '--url', server.url, '--with-token'], { stdin: goodToken, env: { HERALD_CONFIG_DIR: undefined, XDG_CONFIG_HOME: xdg } });
    expect(run.code).toBe(0);
    expect(existsSync(join(xdg, 'herald', 'credentials.json'))).toBe(true);
  });
});

describe('herald instance', () => {
  it('lists, switches and removes instances', async () => {
    await herald(['login', '--url', server.url, '--with-token'], { stdin: goodToken });
    await herald(['login', '--url', second.url, '--with-token'], { stdin: goodToken });
    const listed = await herald(['instance', 'list', '--json']);
    expect(JSON.parse(listed.text)).toStrictEqual([
      { url: server.url, current: false, loggedIn: true },
      { url: second.url, current: true, loggedIn: true },
    ]);
    expect((await herald(['instance', 'list'])).text).toBe(`  ${server.url}\n* ${second.url}\n`);

    expect((await herald(['instance', 'use', server.url])).code).toBe(0);
    await herald(['api', '/orgs']);
    expect(server.requests.at(-1)?.url).toBe('/api/v1/orgs');

    const unknown = await herald(['instance', 'use', 'http://127.0.0.1:2']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("unknown instance http://127.0.0.1:2: run 'herald login --url http://127.0.0.1:2' first");

    expect((await herald(['instance', 'remove', server.url])).code).toBe(0);
    expect(JSON.parse((await herald(['instance', 'list', '--json'])).text)).toStrictEqual([{ url: second.url, current: false, loggedIn: true }]);
    expect(readJson(join(options.configDir, 'credentials.json'))).toStrictEqual({ tokens: { [second.url]: goodToken } });
  });
});

describe('herald org, config, link', () => {
  it('org use writes current_org, which config get/list show', async () => {
    expect((await herald(['org', 'use', 'globex'])).code).toBe(0);
    expect((await herald(['config', 'get', 'current_org'])).text).toBe('globex\n');
    expect((await herald(['config', 'set', 'current_org', 'initech'])).code).toBe(0);
    expect((await herald(['config', 'list'])).text).toBe('current_org=initech\ncurrent_instance=\n');
  });

  it('config rejects unknown keys and invalid instance URLs', async () => {
    const unknown = await herald(['config', 'set', 'colour', 'blue']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown configuration key "colour" (known: current_org, current_instance)');
    const badUrl = await herald(['config', 'set', 'current_instance', 'nope']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('invalid instance URL "nope"');
  });

  it('config commands name a corrupt config file', async () => {
    await herald(['org', 'use', 'x']);
    const path = join(options.configDir, 'config.json');
    writeFileSync(path, 'not json');
    const run = await herald(['config', 'list']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`herald: ${path} is corrupt: not valid JSON`);
  });

  it('link writes .herald.json that herald api uses; unlink removes it', async () => {
    await herald(['login', '--url', server.url, '--with-token'], { stdin: goodToken });
    const link = await herald(['link', '--org', 'linked', '--project', 'billing']);
    expect(link.code).toBe(0);
    expect(readJson(join(options.cwd, '.herald.json'))).toStrictEqual({ org: 'linked', project: 'billing' });
    await herald(['api', '/orgs/{org}/projects/{project}']);
    expect(server.requests.at(-1)?.url).toBe('/api/v1/orgs/linked/projects/billing');

    expect((await herald(['unlink'])).code).toBe(0);
    expect(existsSync(join(options.cwd, '.herald.json'))).toBe(false);
    const again = await herald(['unlink']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('is not linked');
    const nothing = await herald(['link']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('pass --org and/or --project');
  });
});

describe('help and usage errors', () => {
  it.each([
    ['--help'],
    ['api', '--help'],
    ['login', '--help'],
    ['logout', '--help'],
    ['instance', 'list', '--help'],
    ['org', 'use', '--help'],
    ['config', '--help'],
    ['link', '--help'],
    ['unlink', '--help'],
    ['webhooks', '--help'],
    ['webhooks', 'subscribers', 'create', '--help'],
    ['webhooks', 'subscribers', 'list', '--help'],
    ['webhooks', 'subscribers', 'recover', '--help'],
    ['webhooks', 'subscribers', 'recovery', '--help'],
    ['webhooks', 'deliveries', '--help'],
    ['webhooks', 'events', 'list', '--help'],
    ['webhooks', 'events', 'send', '--help'],
    ['webhooks', 'events', 'redeliver', '--help'],
    ['webhooks', 'event-types', '--help'],
    ['webhooks', 'event-types', 'list', '--help'],
    ['webhooks', 'event-types', 'get', '--help'],
    ['webhooks', 'trigger', '--help'],
    ['webhooks', 'deliveries', 'list', '--help'],
    ['webhooks', 'deliveries', 'retry', '--help'],
    ['webhooks', 'verify', '--help'],
    ['completion', '--help'],
  ])('herald %s prints help with examples', async (...args) => {
    const run = await herald(args);
    expect(run.code).toBe(0);
    expect(run.text).toContain('USAGE');
    expect(run.text).toContain('EXAMPLES');
  });

  it('rejects unknown commands and flags with a hint', async () => {
    const command = await herald(['frobnicate']);
    expect([command.code, command.stderr]).toStrictEqual([2, 'herald: unknown command "frobnicate"\nRun \'herald --help\' for usage.\n']);
    const sub = await herald(['webhooks', 'subscribers', 'lst']);
    expect(sub.stderr).toContain('unknown command "lst" for "herald webhooks subscribers"');
    const flag = await herald(['webhooks', 'subscribers', 'list', '--colour']);
    expect([flag.code, flag.stderr]).toStrictEqual([2, "herald: unknown flag --colour\nRun 'herald webhooks subscribers list --help' for usage.\n"]);
  });

  it('prints a bash completion script', async () => {
    const run = await herald(['completion', 'bash']);
    expect(run.code).toBe(0);
    expect(run.text).toContain('complete -F _herald herald');
  });

  it('completes command, subcommand and sub-subcommand names in bash', async () => {
    const script = (await herald(['completion', 'bash'])).text;
    const { execFileSync } = await import('node:child_process');
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', `${script}\nCOMP_WORDS=(herald ${words.join(' ')}); COMP_CWORD=${words.length}; _herald; echo "\${COMPREPLY[*]}"`], { encoding: 'utf8' }).trim();
    expect(complete('we')).toBe('webhooks');
    expect(complete('webhooks', '')).toBe('subscribers deliveries events event-types retention trigger verify listen');
    expect(complete('webhooks', 'event-types', '')).toBe('list get export');
    expect(complete('webhooks', 'event-types', 'ex')).toBe('export');
    expect(complete('webhooks', 'tr')).toBe('trigger');
    expect(complete('webhooks', 'events', '')).toBe('list get send redeliver');
    expect(complete('webhooks', 'events', 're')).toBe('redeliver');
    expect(complete('webhooks', 'deliveries', '')).toBe('list retry');
    expect(complete('webhooks', 'subscribers', 'rec')).toBe('recover recovery');
    expect(complete('webhooks', 'events', 'send', '')).toBe('');
  });
});
