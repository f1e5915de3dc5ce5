// The pure half of `webhooks events send --file`: lines into batches within the server's bounds, the
// server's answers back onto lines, and the progress text.
import { describe, expect, it } from 'vitest';
import {
  BatchBuilder,
  BODY_MAX_BYTES,
  batchBody,
  eventsNamedBy,
  lineProblem,
  outcomeOf,
  progressText,
  refusalOfAll,
  splitRefusal,
  type EventLine,
} from '../src/webhooks/event-batches.js';

const line = (number: number, text: string): EventLine => ({ line: number, text, bytes: Buffer.byteLength(text) });

describe('BatchBuilder', () => {
  it('closes a batch at its event count, when the next line arrives', () => {
    const builder = new BatchBuilder(2);
    expect(builder.add(line(1, '{"a":1}'))).toBeUndefined();
    expect(builder.add(line(2, '{"a":2}'))).toBeUndefined();
    expect(builder.add(line(3, '{"a":3}'))?.map((item) => item.line)).toEqual([1, 2]);
    expect(builder.flush()?.map((item) => item.line)).toEqual([3]);
    expect(builder.flush()).toBeUndefined();
  });

  it('keeps every body within 1 MiB, envelope and commas included', () => {
    const big = `{"data":"${'x'.repeat(300_000)}"}`;
    const builder = new BatchBuilder(1000);
    const batches: EventLine[][] = [];
    for (let number = 1; number <= 10; number += 1) {
      const closed = builder.add(line(number, big));
      if (closed) batches.push(closed);
    }
    batches.push(builder.flush()!);
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    for (const batch of batches) expect(Buffer.byteLength(batchBody(batch))).toBeLessThanOrEqual(BODY_MAX_BYTES);
    // One more such line would not have fitted.
    expect(Buffer.byteLength(batchBody([...batches[0]!, line(11, big)]))).toBeGreaterThan(BODY_MAX_BYTES);
  });

  it('splices the lines in as written: digits beyond a double are kept', () => {
    expect(batchBody([line(1, '{"n":12345678901234567890}'), line(2, '{}')])).toBe('{"events":[{"n":12345678901234567890},{}]}');
  });
});

describe('lineProblem', () => {
  it.each([
    ['{"eventType":"a.b"}', undefined],
    ['{"eventType": ', 'INVALID_LINE'],
    ['"text"', 'INVALID_LINE'],
    ['null', 'INVALID_LINE'],
    [`{"data":"${'x'.repeat(BODY_MAX_BYTES)}"}`, 'PAYLOAD_TOO_LARGE'],
  ])('%s → %s', (text, code) => {
    expect(lineProblem(text)?.code).toBe(code);
  });
});

describe('answers onto lines', () => {
  const lines = [line(3, '{}'), line(7, '{}'), line(9, '{}')];

  it('a 200 answer, by index', () => {
    const outcome = outcomeOf(lines, {
      list: [
        { index: 0, eventId: 'e1', created: true },
        { index: 1, error: { status: 'error', code: 'CONFLICT', message: 'used' } },
        { index: 2, eventId: 'e1', created: false },
      ],
    });
    expect(outcome.accepted).toEqual([{ line: 3, eventId: 'e1', created: true }, { line: 9, eventId: 'e1', created: false }]);
    expect(outcome.failed).toEqual([{ line: 7, code: 'CONFLICT', message: 'used' }]);
    expect(() => outcomeOf(lines, { list: [] })).toThrow(/expected the results of a batch/);
  });

  it('a refusal naming events: those lines fail with the path inside the event, the others are sent again', () => {
    const refusal = {
      status: 'error',
      code: 'MISSING_REQUIRED_PARAMETER',
      message: 'Some fields in the payload are missing or invalid',
      errors: [
        { field: 'events[1].data.n', message: 'must be <= 9007199254740991' },
        { field: 'body.events[2].__proto__', message: 'is not allowed' },
        { field: 'events', message: 'other' },
      ],
    };
    expect([...eventsNamedBy(refusal)]).toEqual([
      [1, [{ field: 'data.n', message: 'must be <= 9007199254740991' }]],
      [2, [{ field: '__proto__', message: 'is not allowed' }]],
    ]);
    const { failed, rest } = splitRefusal(lines, refusal);
    expect(failed.map((failure) => failure.line)).toEqual([7, 9]);
    expect(rest.map((item) => item.line)).toEqual([3]);
    expect(eventsNamedBy({ errors: [{ field: 'events.0', message: 'x' }] }).get(0)).toEqual([{ field: 'event', message: 'x' }]);
  });

  it('a refusal naming no event fails every line with it', () => {
    expect(refusalOfAll(lines, { code: 'PAYLOAD_TOO_LARGE', message: 'too big' }).map((failure) => [failure.line, failure.code])).toEqual([
      [3, 'PAYLOAD_TOO_LARGE'],
      [7, 'PAYLOAD_TOO_LARGE'],
      [9, 'PAYLOAD_TOO_LARGE'],
    ]);
  });
});

describe('progressText', () => {
  const progress = { events: 1500, accepted: 1490, repeated: 0, failed: 10, requests: 15, bytesRead: 50, totalBytes: 200 };
  it('a bar when the size is known', () => {
    expect(progressText(progress)).toBe('██████░░░░░░░░░░░░░░░░░░ 25%  1,500 events read, 1,490 accepted, 10 failed');
  });
  it('counts alone for standard input', () => {
    expect(progressText({ ...progress, totalBytes: undefined })).toBe('Publishing events: 1,500 events read, 1,490 accepted, 10 failed');
  });
});
