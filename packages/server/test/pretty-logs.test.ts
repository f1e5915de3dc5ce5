// Readable logs on a terminal: the format choice, the line layout, and redaction kept.
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger, logFormatFor } from '../src/logging/logger.js';
import { prettyLine, prettyStream } from '../src/logging/pretty.js';

it('pretty on a terminal, JSON elsewhere, unless HERALD_LOG_FORMAT says which', () => {
  expect(logFormatFor(undefined, true)).toBe('pretty');
  expect(logFormatFor(undefined, false)).toBe('json');
  expect(logFormatFor('json', true)).toBe('json');
  expect(logFormatFor('pretty', false)).toBe('pretty');
});

it('a line shows time, level, message and the other fields; non-JSON passes through', () => {
  const line = JSON.stringify({ level: 40, time: Date.UTC(2025, 0, 31, 12, 0, 1, 234), pid: 1, hostname: 'h', service: 'herald-server', msg: 'receiver slow', subscriberId: 'billing', note: 'two words', n: 3 });
  expect(prettyLine(line, false)).toBe('12:00:01.234 WARN  receiver slow subscriberId=billing note="two words" n=3');
  expect(prettyLine(line, true)).toContain('\u001b[33mWARN \u001b[0m');
  expect(prettyLine('not json', false)).toBe('not json');
});

it('secrets are redacted before the line is formatted', async () => {
  const out = new PassThrough();
  const text: string[] = [];
  out.on('data', (chunk: Buffer) => text.push(chunk.toString()));
  const logger = createLogger('info', prettyStream(out, false));
  logger.info({ secret: 'whsec_live_value', req: { headers: { authorization: 'Bearer abc' } } }, 'subscriber updated');
  await new Promise((resolve) => setImmediate(resolve));
  expect(text.join('')).toContain('subscriber updated');
  expect(text.join('')).toContain('[redacted]');
  expect(text.join('')).not.toMatch(/whsec_live_value|Bearer abc/);
});
