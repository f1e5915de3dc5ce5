// `herald webhooks events send --file` (the built executable) against the real host: an NDJSON file
// published in batches, bad lines failing alone with their line numbers, keys making a second run
// publish nothing twice, standard input, the refusals before anything is sent, a token that may not
// publish, and the progress bar on a terminal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loggedIn, realHostSuite } from './support/cli-suite.js';
import { hasScript, runOnTerminal } from './support/terminal.js';

const cli = realHostSuite({ mode: 'api-only' });
const herald = cli.herald;

interface Summary {
  file: string;
  events: number;
  accepted: number;
  created: number;
  repeated: number;
  failed: number;
  requests: number;
  failures: Array<{ line: number; code: string; message: string; errors?: Array<{ field: string; message: string }> }>;
  stopped?: { line: number; code: string; message: string };
}

const storedCount = (filter: Record<string, unknown>) => cli.host.database.db.collection('herald_events').countDocuments(filter);
const eventLine = (index: number, extra: Record<string, unknown> = {}) => JSON.stringify({ eventType: 'bulk.made', aggregateId: `bulk-${index}`, data: { index }, idempotencyKey: `bulk-${index}`, ...extra });

/** 250 events, with on known lines what a file may get wrong. */
function mixedFile(): { text: string; valid: number } {
  const lines: string[] = [];
  for (let index = 0; index < 250; index += 1) lines.push(eventLine(index));
  lines[4] = '';                                                                           // line 5: blank, skipped
  lines[9] = '{"eventType": "bulk.made", ';                                               // line 10: not JSON
  lines[19] = '[1, 2]';                                                                    // line 20: not an object
  lines[29] = eventLine(29, { eventType: 'Bulk Made' });                                  // line 30: refused by the server
  lines[149] = '{"eventType":"bulk.made","aggregateId":"bulk-149","data":{"n":9007199254740993}}'; // line 150: refuses its request
  lines[199] = eventLine(199, { surprise: true });                                        // line 200: unknown field
  return { text: `\uFEFF${lines.join('\r\n')}\n`, valid: 250 - 6 };
}

let mixedPath: string;

beforeAll(() => {
  const directory = join(cli.options.cwd, 'files');
  mkdirSync(directory, { recursive: true });
  mixedPath = join(directory, 'events.ndjson');
  writeFileSync(mixedPath, mixedFile().text);
  writeFileSync(join(directory, 'empty.ndjson'), '\n\n');
});

describe('send --file against the real host', () => {
  it('publishes every good line in batches; bad lines fail alone with their line numbers (exit 1)', async () => {
    const run = await herald(['webhooks', 'events', 'send', '--file', mixedPath, '--batch-size', '100']);
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.text) as Summary;
    expect(summary).toMatchObject({ file: mixedPath, events: 249, accepted: mixedFile().valid, created: mixedFile().valid, repeated: 0, failed: 5 });
    expect(summary.failures.map((failure) => [failure.line, failure.code])).toEqual([
      [10, 'INVALID_LINE'],
      [20, 'INVALID_LINE'],
      [30, 'MISSING_REQUIRED_PARAMETER'],
      [150, 'MISSING_REQUIRED_PARAMETER'],
      [200, 'MISSING_REQUIRED_PARAMETER'],
    ]);
    expect(summary.failures[0]!.message).toMatch(/^not valid JSON/);
    expect(summary.failures[1]!.message).toBe('must be a JSON object (one event), got an array');
    expect(summary.failures[2]!.errors).toEqual([{ field: 'eventType', message: expect.any(String) }]);
    expect(summary.failures[3]!.errors).toEqual([{ field: 'data.n', message: expect.stringContaining('9007199254740991') }]);
    expect(summary.failures[4]!.errors).toEqual([{ field: 'surprise', message: 'is not allowed' }]);
    // Three batches of at most 100 events, and the second sent again without the line its refusal named.
    expect(summary.requests).toBe(4);
    expect(run.stderr).toContain('herald: lines 1–103: 99 accepted, 1 failed (99 accepted, 3 failed so far)');
    expect(run.stderr).toContain('herald: lines 104–203: 98 accepted, 2 failed');
    expect(run.stderr).toContain('herald: 5 of 249 events were not published');
    expect(await storedCount({ eventType: 'bulk.made' })).toBe(mixedFile().valid);
  });

  it('a second run publishes nothing twice: every keyed line answers the event published the first time', async () => {
    const run = await herald(['webhooks', 'events', 'send', '--file', mixedPath, '--json']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.text) as Summary;
    expect(summary).toMatchObject({ accepted: mixedFile().valid, created: 0, repeated: mixedFile().valid, failed: 5, requests: 4 });
    expect(await storedCount({ eventType: 'bulk.made' })).toBe(mixedFile().valid);
  });

  it('--file - reads standard input; all lines published → exit 0', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => JSON.stringify({ eventType: 'stdin.made', aggregateId: `in-${index}`, data: { index } }));
    const run = await herald(['webhooks', 'events', 'send', '--file', '-', '--batch-size', '7'], { stdin: `${lines.join('\n')}\n` });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.text)).toMatchObject({ file: '(standard input)', events: 30, accepted: 30, failed: 0, requests: 5, failures: [] });
    expect(await storedCount({ eventType: 'stdin.made' })).toBe(30);
  });

  it.each([
    [['--file', 'x.ndjson', '--type', 'a.b'], 2, '--file takes every event from the file; --type is for sending one event'],
    [['--file', 'x.ndjson', '--data', '{}', '--idempotency-key', 'k'], 2, '--data, --idempotency-key are for sending one event'],
    [['--file', 'x.ndjson', '--batch-size', '0'], 2, '--batch-size must be an integer from 1 to 1000, got "0"'],
    [['--file', 'x.ndjson', '--batch-size', '1001'], 2, '--batch-size must be an integer from 1 to 1000'],
    [['--file', 'x.ndjson', '--batch-size', '10.5'], 2, '--batch-size must be an integer'],
    [['--batch-size', '10', '--type', 'a.b'], 2, '--batch-size goes with --file'],
    [['--file'], 2, 'flag --file needs a value'],
    [['--file', 'files/missing.ndjson'], 4, 'cannot read "files/missing.ndjson": no such file'],
    [['--file', 'files'], 4, 'cannot read "files": it is a directory'],
    [['--file', 'files/empty.ndjson'], 4, 'holds no events'],
  ])('send %j → exit %i before anything is sent', async (args, code, message) => {
    const before = await storedCount({});
    const run = await herald(['webhooks', 'events', 'send', ...args]);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(run.text).toBe('');
    expect(await storedCount({})).toBe(before);
  });

  it('a token that may not publish stops at the first request: exit 1, the summary says where', async () => {
    const { token } = await cli.host.createToken(['dp:event:read']);
    const run = await herald(['webhooks', 'events', 'send', '--file', mixedPath], loggedIn(cli.host.host.url, { token }));
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.text) as Summary;
    expect(summary).toMatchObject({ accepted: 0, requests: 1, stopped: { line: 1, code: 'HTTP_403' } });
    expect(run.stderr).toContain('HTTP 403 FORBIDDEN');
    expect(run.stderr).toContain('Stopped at line 1');
  });

  it.skipIf(!hasScript)('on a terminal: a progress bar on standard error, then the counts and the failed lines', async () => {
    const { code, transcript } = await runOnTerminal(['webhooks', 'events', 'send', '--file', mixedPath], cli.options);
    expect(code, transcript).toBe(1);
    expect(transcript).toMatch(/[█░]{24} \d+% {2}\d+ events read, \d+ accepted, \d+ failed/);
    expect(transcript).toMatch(/repeated\s+244/);
    expect(transcript).toMatch(/Failed lines:/);
    expect(transcript).toMatch(/150\s+MISSING_REQUIRED_PARAMETER\s+data\.n: must be/);
  }, 60_000);
});
