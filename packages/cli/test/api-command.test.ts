// `herald api` end to end: the built executable against a loopback server that records requests.
// One test per rule and table row of spec area A, plus the extensions (paginate, jq, verbose, dry-run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingServerSuite } from './support/cli-suite.js';
import { testToken } from './support/config-fixture.js';
import { startRecordingServer } from './support/recording-server.js';

// Each test starts with nothing recorded and the server answering 200 {"ok":true}.
const cli = recordingServerSuite({ currentOrg: 'acme' });
const herald = cli.herald;

function only() {
  expect(cli.server.requests).toHaveLength(1);
  return cli.server.requests[0]!;
}

describe('endpoint resolution', () => {
  it('sends GET to /api/v1/orgs with the bearer token and prints the body as received', async () => {
    const run = await herald(['api', '/orgs']);
    expect(run.code).toBe(0);
    expect(run.text).toBe('{"ok":true}');
    const request = only();
    expect(request.method).toBe('GET');
    expect(request.url).toBe('/api/v1/orgs');
    expect(request.headers.authorization).toBe(`Bearer ${testToken}`);
    expect(request.headers.accept).toBe('application/json');
  });

  it.each(['/api/v1/orgs', 'orgs', 'api/v1/orgs'])('treats %s the same as /orgs', async (endpoint) => {
    const run = await herald(['api', endpoint]);
    expect(run.code).toBe(0);
    expect(only().url).toBe('/api/v1/orgs');
  });

  it('sends /api/v0.9/… to that version on the same host', async () => {
    await herald(['api', '/api/v0.9/webhook-subscribers']);
    expect(only().url).toBe('/api/v0.9/webhook-subscribers');
  });

  it('accepts a full URL of the current instance', async () => {
    await herald(['api', `${cli.server.url}/api/v0.9/webhook-events?status=FAILED`]);
    expect(only().url).toBe('/api/v0.9/webhook-events?status=FAILED');
  });

  it('refuses a full URL of another host and sends nothing', async () => {
    const run = await herald(['api', 'http://127.0.0.2:9/api/v1/orgs']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not the current instance');
    expect(run.stderr).not.toContain(testToken);
    expect(cli.server.requests).toHaveLength(0);
  });
});

describe('methods, fields and bodies', () => {
  it('turns -f/-F into the query string for GET, also with an explicit -X GET', async () => {
    await herald(['api', '/orgs', '-X', 'GET', '-f', 'q=a b', '-F', 'limit=5', '-F', 'flag=true']);
    const request = only();
    expect(request.method).toBe('GET');
    expect(request.url).toBe('/api/v1/orgs?q=a%20b&limit=5&flag=true');
    expect(request.body.length).toBe(0);
  });

  it('becomes POST with a JSON body when fields are given without -X, with the typed-value table applied', async () => {
    const file = join(cli.options.cwd, 'note.txt');
    writeFileSync(file, 'from a file');
    const run = await herald([
      'api', '/orgs/{org}/projects',
      '-F', 'yes=true', '-F', 'no=false', '-F', 'count=42', '-F', 'negative=-7', '-F', 'nothing=null',
      '-F', `note=@${file}`, '-F', 'word=hello', '-F', 'decimal=1.5',
      '-f', 'rawTrue=true', '-f', 'rawNumber=42',
    ]);
    expect(run.code).toBe(0);
    const request = only();
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/orgs/acme/projects');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body.toString())).toStrictEqual({
      yes: true, no: false, count: 42, negative: -7, nothing: null, note: 'from a file', word: 'hello', decimal: '1.5',
      rawTrue: 'true', rawNumber: '42',
    });
  });

  it('sends fields as a JSON body for -X PUT and keeps integers beyond 2^53 exact', async () => {
    await herald(['api', '-X', 'put', '/orgs/acme', '-F', 'big=123456789012345678901234567890', '-F', 'tags[]=a', '-F', 'tags[]=b', '-F', 'meta[owner]=ops']);
    const request = only();
    expect(request.method).toBe('PUT');
    expect(request.body.toString()).toBe('{"big":123456789012345678901234567890,"tags":["a","b"],"meta":{"owner":"ops"}}');
  });

  it('keeps -f and -F in command-line order when they build one array', async () => {
    await herald(['api', '-X', 'POST', '/orgs', '-F', 'list[]=1', '-f', 'list[]=2', '-F', 'list[]=3']);
    expect(JSON.parse(only().body.toString())).toStrictEqual({ list: [1, '2', 3] });
  });

  it('reads -F key=@- from standard input', async () => {
    await herald(['api', '/orgs', '-X', 'POST', '-F', 'description=@-'], { stdin: 'piped text' });
    expect(JSON.parse(only().body.toString())).toStrictEqual({ description: 'piped text' });
  });

  it('sends --input - (standard input) as the raw body, byte for byte, as POST', async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x7b, 0x0a, 0xc3, 0x28]);
    const run = await herald(['api', '/orgs/acme/projects', '--input', '-'], { stdin: bytes });
    expect(run.code).toBe(0);
    const request = only();
    expect(request.method).toBe('POST');
    expect(request.body.equals(bytes)).toBe(true);
  });

  it('sends an --input file as the body and keeps fields in the query', async () => {
    const file = join(cli.options.cwd, 'body.json');
    writeFileSync(file, '{ "displayName" : "x" }');
    await herald(['api', '-X', 'PUT', '/api/v0.9/webhook-subscribers/billing', '--input', file, '-f', 'dryRun=1']);
    const request = only();
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('/api/v0.9/webhook-subscribers/billing?dryRun=1');
    expect(request.body.toString()).toBe('{ "displayName" : "x" }');
  });

  it('adds repeatable -H headers', async () => {
    await herald(['api', '/orgs', '-H', 'X-One: 1', '-H', 'X-Two: two words', '-H', 'Accept: text/plain']);
    const request = only();
    expect(request.headers['x-one']).toBe('1');
    expect(request.headers['x-two']).toBe('two words');
    expect(request.headers.accept).toBe('text/plain');
  });

  it('sends Content-Length: 0 with a POST that has no body (not a chunked empty body)', async () => {
    await herald(['api', '-X', 'POST', '/api/v0.9/webhook-events/e1/redeliver']);
    const request = only();
    expect(request.headers['content-length']).toBe('0');
    expect(request.headers['transfer-encoding']).toBeUndefined();
  });

  it('lets a supplied Authorization header (any letter case) replace the token', async () => {
    await herald(['api', '/orgs', '-H', 'authorization: Basic dXNlcjpwYXNz']);
    const request = only();
    expect(request.headers.authorization).toBe('Basic dXNlcjpwYXNz');
    expect(request.rawHeaderNames.filter((name) => name.toLowerCase() === 'authorization')).toHaveLength(1);
    expect(JSON.stringify(request.headers)).not.toContain(testToken);
  });
});

describe('responses', () => {
  it('prints a binary body byte for byte', async () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    cli.server.respond(() => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.concat([all, all]) }));
    const run = await herald(['api', '/orgs/acme/export']);
    expect(run.code).toBe(0);
    expect(run.stdout.equals(Buffer.concat([all, all]))).toBe(true);
  });

  it('does not re-encode or pretty-print JSON', async () => {
    const body = '{"b":1,  "a":[1,2],\n"é":"\\u00e9"}';
    cli.server.respond(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body }));
    expect((await herald(['api', '/orgs'])).text).toBe(body);
  });

  it('with -i prints the status line and headers, a blank line, then the body', async () => {
    cli.server.respond(() => ({ status: 201, headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'r-1' }, body: '{"id":"p1"}' }));
    const run = await herald(['api', '-i', '-X', 'POST', '/orgs/acme/projects']);
    expect(run.code).toBe(0);
    const [head, body] = run.text.split('\n\n');
    const lines = head!.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 201 Created');
    expect(lines).toContain('Content-Type: application/json');
    expect(lines).toContain('X-Request-Id: r-1');
    expect(body).toBe('{"id":"p1"}');
  });

  it.each([400, 404, 500])('on HTTP %i prints the body, writes "herald: HTTP <status>" to stderr and exits 1', async (status) => {
    const body = `{"status":"error","code":"X","message":"failed with ${status}"}`;
    cli.server.respond(() => ({ status, headers: { 'content-type': 'application/json' }, body }));
    const run = await herald(['api', '/orgs/missing']);
    expect(run.code).toBe(1);
    expect(run.text).toBe(body);
    expect(run.stderr).toBe(`herald: HTTP ${status}\n`);
  });

  it('prints a legacy {"message"} error body unchanged', async () => {
    cli.server.respond(() => ({ status: 400, body: '{"message":"fields in the payload are missing or invalid"}' }));
    const run = await herald(['api', '-X', 'POST', '/orgs']);
    expect(run.code).toBe(1);
    expect(run.text).toBe('{"message":"fields in the payload are missing or invalid"}');
  });
});

describe('placeholders', () => {
  it('fails on an unknown placeholder with the exact message and sends nothing', async () => {
    const run = await herald(['api', '/orgs/{org}/things/{foo}']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('herald: unknown placeholder {foo} (supported: {org}, {project})\n');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('checks placeholders before anything else, even with a broken config', async () => {
    writeFileSync(join(cli.options.configDir, 'config.json'), '{oops');
    const run = await herald(['api', '/x/{bar}']);
    expect(run.stderr).toBe('herald: unknown placeholder {bar} (supported: {org}, {project})\n');
  });

  it('fails when {project} resolves to empty and sends nothing', async () => {
    const run = await herald(['api', '/orgs/{org}/projects/{project}']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("{project} is empty: pass --project or run 'herald link --project PROJECT'");
    expect(cli.server.requests).toHaveLength(0);
  });

  it('fails when {org} resolves to empty (--org "") and sends nothing', async () => {
    const run = await herald(['api', '/orgs/{org}', '--org', '']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('{org} is empty');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('fills {org} from current_org when nothing else names one', async () => {
    await herald(['api', '/orgs/{org}']);
    expect(only().url).toBe('/api/v1/orgs/acme');
  });

  it('prefers the linked directory (found upward from the working directory) over current_org', async () => {
    writeFileSync(join(cli.options.cwd, '.herald.json'), JSON.stringify({ org: 'linked-org', project: 'linked-project' }));
    const nested = join(cli.options.cwd, 'src', 'deep');
    mkdirSync(nested, { recursive: true });
    await herald(['api', '/orgs/{org}/projects/{project}'], { cwd: nested });
    expect(only().url).toBe('/api/v1/orgs/linked-org/projects/linked-project');
  });

  it('prefers --org and --project over the link', async () => {
    writeFileSync(join(cli.options.cwd, '.herald.json'), JSON.stringify({ org: 'linked-org', project: 'linked-project' }));
    await herald(['api', '/orgs/{org}/projects/{project}', '--org', 'flag-org', '--project', 'flag project']);
    expect(only().url).toBe('/api/v1/orgs/flag-org/projects/flag%20project');
  });

  it('accepts the inherited --org before the command name', async () => {
    await herald(['--org', 'root-flag', 'api', '/orgs/{org}']);
    expect(only().url).toBe('/api/v1/orgs/root-flag');
  });

  it('takes {org} from current_org when the link names only a project', async () => {
    writeFileSync(join(cli.options.cwd, '.herald.json'), JSON.stringify({ project: 'p1' }));
    await herald(['api', '/orgs/{org}/projects/{project}']);
    expect(only().url).toBe('/api/v1/orgs/acme/projects/p1');
  });
});

describe('bad input: clear message, non-zero exit, nothing sent', () => {
  it.each([
    [['-f', 'novalue'], 'invalid -f/--raw-field "novalue": expected key=value'],
    [['-F', '=x'], 'invalid -F/--field "=x": expected key=value'],
    [['-F', 'a[b=1'], 'invalid field name "a[b"'],
    [['--bogus'], 'unknown flag --bogus'],
    [['-Z'], 'unknown flag -Z'],
    [['-H', 'NoColon'], 'invalid header "NoColon"'],
    [['-X'], 'flag -X needs a value'],
  ])('%j', async (extra, message) => {
    const run = await herald(['api', '/orgs', ...extra]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('gives a usage hint for an unknown flag', async () => {
    const run = await herald(['api', '/orgs', '--nope']);
    expect(run.stderr).toBe("herald: unknown flag --nope\nRun 'herald api --help' for usage.\n");
  });

  it('names a missing @file', async () => {
    const run = await herald(['api', '/orgs', '-F', 'body=@/does/not/exist.json']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('field "body": cannot read "/does/not/exist.json": no such file');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('names a missing --input file', async () => {
    const run = await herald(['api', '/orgs', '--input', 'missing.bin']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('--input: cannot read "missing.bin": no such file');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('names a corrupt config file', async () => {
    const path = join(cli.options.configDir, 'config.json');
    writeFileSync(path, '{"current_instance": ');
    const run = await herald(['api', '/orgs']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${path} is corrupt: not valid JSON`);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('reports an unreadable config file', async () => {
    const path = join(cli.options.configDir, 'config.json');
    const { rmSync } = await import('node:fs');
    rmSync(path);
    mkdirSync(path);
    const run = await herald(['api', '/orgs']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`cannot read ${path}`);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('reports a corrupt link file only when a placeholder needs it', async () => {
    writeFileSync(join(cli.options.cwd, '.herald.json'), '[1,2]');
    const run = await herald(['api', '/orgs/{org}']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('.herald.json is corrupt: expected a JSON object');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('requires a token unless an Authorization header is given', async () => {
    writeFileSync(join(cli.options.configDir, 'credentials.json'), '{}');
    const run = await herald(['api', '/orgs']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`not logged in to ${cli.server.url}`);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('explains a connection failure with exit code 5', async () => {
    const run = await herald(['api', '/orgs'], { env: { HERALD_URL: 'http://127.0.0.1:1', HERALD_TOKEN: 't' } });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('request to http://127.0.0.1:1 failed: ECONNREFUSED');
  });
});

describe('environment overrides', () => {
  it('uses HERALD_URL and HERALD_TOKEN over the configuration', async () => {
    const other = await startRecordingServer();
    try {
      const run = await herald(['api', '/orgs'], { env: { HERALD_URL: other.url, HERALD_TOKEN: 'env-token' } });
      expect(run.code).toBe(0);
      expect(cli.server.requests).toHaveLength(0);
      expect(other.requests[0]?.headers.authorization).toBe('Bearer env-token');
    } finally {
      await other.close();
    }
  });
});

describe('beyond the spec', () => {
  const items = Array.from({ length: 45 }, (_, index) => ({ id: `s${index}` }));
  const paged = (request: { url: string }) => {
    const url = new URL(request.url, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const list = items.slice(offset, offset + limit);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ list, count: list.length, pagination: { total: items.length, limit, offset } }) };
  };

  it('--paginate follows limit/offset and prints every page', async () => {
    cli.server.respond(paged);
    const run = await herald(['api', '/api/v0.9/webhook-subscribers', '--paginate', '-F', 'limit=20']);
    expect(run.code).toBe(0);
    expect(cli.server.requests.map((request) => request.url)).toStrictEqual([
      '/api/v0.9/webhook-subscribers?limit=20',
      '/api/v0.9/webhook-subscribers?limit=20&offset=20',
      '/api/v0.9/webhook-subscribers?limit=20&offset=40',
    ]);
    expect(run.text.split('}{"list"')).toHaveLength(3);
  });

  it('--paginate --slurp merges the pages\' lists into one array', async () => {
    cli.server.respond(paged);
    const run = await herald(['api', '/api/v0.9/webhook-subscribers', '--paginate', '--slurp']);
    expect(JSON.parse(run.text)).toStrictEqual(items);
  });

  it('--paginate follows Link rel="next"', async () => {
    cli.server.respond((request) =>
      request.url.endsWith('page=2')
        ? { status: 200, body: '[3]' }
        : { status: 200, headers: { link: '</api/v1/things?page=2>; rel="next", </api/v1/things?page=9>; rel="last"' }, body: '[1,2]' },
    );
    const run = await herald(['api', '/things', '--paginate', '--slurp']);
    expect(JSON.parse(run.text)).toStrictEqual([1, 2, 3]);
    expect(cli.server.requests.map((request) => request.url)).toStrictEqual(['/api/v1/things', '/api/v1/things?page=2']);
  });

  it('--jq filters with real jq semantics', async () => {
    cli.server.respond(() => ({ status: 200, body: JSON.stringify({ list: [{ id: 'a', n: 1 }, { id: 'b', n: 2 }] }) }));
    const run = await herald(['api', '/orgs', '--jq', '.list[] | select(.n > 1) | .id, ([.list[].n] | add)']);
    expect(run.code).toBe(0);
    expect(run.text).toBe('b\n');
    const sum = await herald(['api', '/orgs', '-q', '[.list[].n] | add']);
    expect(sum.text).toBe('3\n');
  });

  it('--jq with a broken expression is a usage error', async () => {
    const run = await herald(['api', '/orgs', '--jq', '.[[[']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--jq:');
  });

  it('--silent prints no body', async () => {
    const run = await herald(['api', '/orgs', '--silent']);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(0);
    expect(cli.server.requests).toHaveLength(1);
  });

  it('--verbose shows request and response headers on stderr with the token redacted', async () => {
    const run = await herald(['api', '/orgs', '--verbose']);
    expect(run.stderr).toContain('> GET /api/v1/orgs HTTP/1.1');
    expect(run.stderr).toContain('> Authorization: Bearer ***');
    expect(run.stderr).toContain('< HTTP/1.1 200 OK');
    expect(run.stderr + run.text).not.toContain(testToken);
  });

  it('--dry-run prints a curl command with the token redacted and sends nothing', async () => {
    const run = await herald(['api', '/orgs/{org}/projects', '-F', 'name=billing', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.text).toBe(
      `curl -X POST ${cli.server.url}/api/v1/orgs/acme/projects -H 'Accept: application/json' -H 'Content-Type: application/json' ` +
        `-H 'User-Agent: herald-cli/0.1.0' -H 'Authorization: Bearer ***' --data-binary '{"name":"billing"}'\n`,
    );
    expect(cli.server.requests).toHaveLength(0);
  });
});

describe('--dry-run and secret fields', () => {
  it('masks secret-named body fields at any depth unless --show-secrets; headers stay redacted either way', async () => {
    const args = ['api', '/api/v0.9/webhook-subscribers', '-f', 'displayName=Billing', '-f', 'secret=whsec_dry_run_value', '-F', 'auth[apiKey]=key_dry_run_value', '--dry-run'];
    const masked = await herald(args);
    expect(masked.code).toBe(0);
    expect(masked.text).toContain(`--data-binary '{"displayName":"Billing","secret":"***","auth":{"apiKey":"***"}}'`);
    expect(masked.text).not.toMatch(/dry_run_value|${testToken}/);
    const shown = await herald([...args, '--show-secrets']);
    expect(shown.text).toContain('"secret":"whsec_dry_run_value"');
    expect(shown.text).toContain('"apiKey":"key_dry_run_value"');
    expect(shown.text).toContain("-H 'Authorization: Bearer ***'");
    expect(shown.text).not.toContain(testToken);
    expect(cli.server.requests).toHaveLength(0);
  });
});

describe('checked before anything is sent', () => {
  it('an invalid --jq filter is a usage error before the request, even for DELETE', async () => {
    const run = await herald(['api', '-X', 'DELETE', '/orgs/{org}', '--jq', '.list[] | ']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^herald: --jq: syntax error/);
    expect(cli.server.requests).toHaveLength(0);
  });

  it('an undefined jq function or variable is caught before the request too', async () => {
    for (const filter of ['.list[] | nosuchfn', '$nosuchvar']) {
      const run = await herald(['api', '/orgs', '--jq', filter]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('is not defined');
    }
    expect(cli.server.requests).toHaveLength(0);
  });

  it('a valid filter that fails on the response exits 1 (the request was sent)', async () => {
    cli.server.respond(() => ({ status: 200, body: '{"list":"not an array"}' }));
    const run = await herald(['api', '/orgs', '--jq', '.list[0]']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('herald: --jq: Cannot index string with number\n');
    expect(cli.server.requests).toHaveLength(1);
  });

  it.each([
    ['a newline in the value', 'X-A: one\ntwo'],
    ['a carriage return in the value', 'X-A: one\r\nX-Injected: yes'],
    ['a control character in the name', 'X\u0001A: one'],
    ['a character that cannot go into a header', 'X-A: \u65e5\u672c'],
    ['a name that is not a token', 'X(A): one'],
  ])('-H with %s is a usage error, nothing sent', async (_, header) => {
    const run = await herald(['api', '/orgs', '-H', header]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^herald: invalid header "/);
    expect(run.stderr).not.toContain('unexpected error');
    expect(cli.server.requests).toHaveLength(0);
  });

  it.each([
    ['Authorization', 'Bearer hrd_leak_me_0123456789\u0001'],
    ['authorization', 'hrd_leak_me_0123456789\u0001'],
    ['X-Api-Key', 'hrd_leak_me_0123456789\u0001'],
    ['Cookie', 'session=hrd_leak_me_0123456789\n'],
  ])('an invalid %s header names the problem without printing the credential', async (name, value) => {
    const run = await herald(['api', '/orgs', '-H', `${name}: ${value}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^herald: invalid header "${name}: [^"]*\\*\\*\\*": control characters`));
    expect(run.stderr + run.text).not.toContain('hrd_leak_me');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('placeholder values "." and ".." are sent as escaped path segments', async () => {
    await herald(['api', '-X', 'DELETE', '/orgs/{org}/projects/{project}', '--org', '..', '--project', '..']);
    await herald(['api', '/orgs/{org}/projects/{project}', '--org', '.', '--project', '...']);
    expect(cli.server.requests.map((request) => `${request.method} ${request.url}`)).toStrictEqual([
      'DELETE /api/v1/orgs/%2E%2E/projects/%2E%2E',
      'GET /api/v1/orgs/%2E/projects/...',
    ]);
  });

  it('a placeholder value ".." from the link or current_org is escaped the same way', async () => {
    writeFileSync(join(cli.options.cwd, '.herald.json'), JSON.stringify({ project: '..' }));
    const run = await herald(['api', '--dry-run', '-X', 'DELETE', '/orgs/{org}/projects/{project}']);
    expect(run.text).toContain(`${cli.server.url}/api/v1/orgs/acme/projects/%2E%2E `);
  });

  it.each([
    '/../../x',
    '/orgs/../..',
    'orgs/%2e%2E/%2E%2e/admin',
    '/orgs/.%2E/%2e.',
    '/api/v0.9/../../x',
    '/api/v0.9/%2E%2E/v1/orgs',
    '/orgs\\..\\..\\x',
  ])('refuses %s, which climbs out of the API base, and sends nothing', async (endpoint) => {
    const run = await herald(['api', '-X', 'DELETE', endpoint]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('leaves the API base');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('refuses a full URL of the instance whose dot segments leave the API base', async () => {
    const run = await herald(['api', `${cli.server.url}/api/v1/orgs/../../../healthz`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('leaves the API base /api/v1');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('resolves dot segments that stay inside the API base', async () => {
    await herald(['api', '/orgs/other/../{org}/./projects']);
    expect(only().url).toBe('/api/v1/orgs/acme/projects');
  });

  it('refuses control characters in the endpoint (a URL parser would silently drop a newline)', async () => {
    const run = await herald(['api', '/orgs/.\n./x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid endpoint "/orgs/.\\n./x"');
    expect(cli.server.requests).toHaveLength(0);
  });
});
