// `webhooks events send --file`: the lines of an NDJSON file grouped into requests for
// POST /api/v0.9/webhook-events/batch, the server's answers put back onto lines, the progress text
// and the summary. Pure; send-file.ts does the reading and sending.
import { CliError, ExitCode } from '../errors.js';

/** The server's bounds on one batch request (docs/server.md "Batch publish"). */
export const BATCH_MAX_EVENTS = 1000;
export const BODY_MAX_BYTES = 1024 * 1024;
export const BATCH_DEFAULT_SIZE = 100;

const ENVELOPE = { start: '{"events":[', end: ']}' };
const ENVELOPE_BYTES = ENVELOPE.start.length + ENVELOPE.end.length;

/** One event as the file holds it: its line number (from 1) and its JSON text, sent as written. */
export interface EventLine {
  readonly line: number;
  readonly text: string;
  readonly bytes: number;
}

export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

export interface LineFailure {
  readonly line: number;
  readonly code: string;
  readonly message: string;
  readonly errors?: readonly FieldIssue[];
}

export interface LineAccepted {
  readonly line: number;
  readonly eventId: string;
  readonly created: boolean;
}

export interface BatchOutcome {
  readonly accepted: LineAccepted[];
  readonly failed: LineFailure[];
}

function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Why a line cannot be sent, or undefined. Only what keeps it from being an item of the request is
 * checked here: the server checks the event itself and answers for it alone.
 */
export function lineProblem(text: string): { code: string; message: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { code: 'INVALID_LINE', message: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { code: 'INVALID_LINE', message: `must be a JSON object (one event), got ${describeJsonValue(parsed)}` };
  }
  if (ENVELOPE_BYTES + Buffer.byteLength(text) > BODY_MAX_BYTES) {
    return { code: 'PAYLOAD_TOO_LARGE', message: 'is larger than the 1 MiB a request may carry' };
  }
  return undefined;
}

/** The request body: the lines' text spliced in as written, so every digit of every number is kept. */
export function batchBody(lines: readonly EventLine[]): string {
  return `${ENVELOPE.start}${lines.map((line) => line.text).join(',')}${ENVELOPE.end}`;
}

/** Lines into batches of at most `maxEvents` events and BODY_MAX_BYTES of body, in file order. */
export class BatchBuilder {
  private lines: EventLine[] = [];
  private bytes = ENVELOPE_BYTES;

  constructor(private readonly maxEvents: number) {}

  /** Adds a line (one lineProblem accepted); returns the batch it closed, if it did not fit in it. */
  add(line: EventLine): EventLine[] | undefined {
    const full = this.lines.length >= this.maxEvents || this.bytes + 1 + line.bytes > BODY_MAX_BYTES;
    const closed = this.lines.length > 0 && full ? this.take() : undefined;
    this.bytes += (this.lines.length > 0 ? 1 : 0) + line.bytes;
    this.lines.push(line);
    return closed;
  }

  /** The last batch, if any line is left. */
  flush(): EventLine[] | undefined {
    return this.lines.length > 0 ? this.take() : undefined;
  }

  private take(): EventLine[] {
    const taken = this.lines;
    this.lines = [];
    this.bytes = ENVELOPE_BYTES;
    return taken;
  }
}

interface ErrorBodyShape {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

function issuesOf(value: unknown): FieldIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues = value.filter((item): item is FieldIssue => typeof item?.field === 'string' && typeof item?.message === 'string');
  return issues.length > 0 ? issues.map(({ field, message }) => ({ field, message })) : undefined;
}

function failureOf(line: number, error: ErrorBodyShape | undefined): LineFailure {
  const errors = issuesOf(error?.errors);
  return {
    line,
    code: typeof error?.code === 'string' ? error.code : 'UNKNOWN',
    message: typeof error?.message === 'string' ? error.message : 'refused',
    ...(errors ? { errors } : {}),
  };
}

function unexpected(data: unknown): CliError {
  return new CliError('UNEXPECTED_RESPONSE', `expected the results of a batch from the server, got: ${JSON.stringify(data)?.slice(0, 120)}`, ExitCode.failed);
}

/** The server's 200 answer put back onto the batch's lines. */
export function outcomeOf(lines: readonly EventLine[], data: unknown): BatchOutcome {
  const list = (data as { list?: unknown } | null)?.list;
  if (!Array.isArray(list) || list.length !== lines.length) throw unexpected(data);
  const outcome: BatchOutcome = { accepted: [], failed: [] };
  for (const result of list as Array<{ index?: unknown; eventId?: unknown; created?: unknown; error?: unknown }>) {
    const line = typeof result?.index === 'number' ? lines[result.index] : undefined;
    if (!line) throw unexpected(data);
    if (typeof result.eventId === 'string') outcome.accepted.push({ line: line.line, eventId: result.eventId, created: result.created !== false });
    else outcome.failed.push(failureOf(line.line, result.error as ErrorBodyShape | undefined));
  }
  return outcome;
}

/**
 * A refused request's field details that name one of its events (`events[3].data.n` from the JSON
 * text checks, `events.3` from the schema, `body.events[3]…` for a prototype key): by index, each
 * detail with the path inside the event.
 */
export function eventsNamedBy(errorBody: unknown): Map<number, FieldIssue[]> {
  const named = new Map<number, FieldIssue[]>();
  for (const issue of issuesOf((errorBody as ErrorBodyShape | null)?.errors) ?? []) {
    const match = /^(?:body\.)?events(?:\[(\d+)\]|\.(\d+))(?:\.|(?=\[)|$)(.*)$/.exec(issue.field);
    if (!match) continue;
    const index = Number(match[1] ?? match[2]);
    named.set(index, [...(named.get(index) ?? []), { field: match[3] || 'event', message: issue.message }]);
  }
  return named;
}

/** The lines a whole-request refusal names, failed with its code and message; the others are left to send again. */
export function splitRefusal(lines: readonly EventLine[], errorBody: unknown): { failed: LineFailure[]; rest: EventLine[] } {
  const named = eventsNamedBy(errorBody);
  const { code, message } = failureOf(0, errorBody as ErrorBodyShape);
  const failed: LineFailure[] = [];
  const rest: EventLine[] = [];
  lines.forEach((line, index) => {
    const errors = named.get(index);
    if (errors) failed.push({ line: line.line, code, message, errors });
    else rest.push(line);
  });
  return { failed, rest };
}

/** A refusal of the whole request that names none of its events: every line of it fails with it. */
export function refusalOfAll(lines: readonly EventLine[], errorBody: unknown): LineFailure[] {
  return lines.map((line) => failureOf(line.line, errorBody as ErrorBodyShape | undefined));
}

export interface SendProgress {
  /** Non-blank lines read so far. */
  events: number;
  accepted: number;
  /** Of the accepted: already published under their idempotency key. */
  repeated: number;
  failed: number;
  requests: number;
  bytesRead: number;
  /** The file's size; unknown for standard input. */
  totalBytes: number | undefined;
}

const BAR_WIDTH = 24;

/** The terminal's progress line: a bar when the size is known, then the counts. */
export function progressText(progress: SendProgress): string {
  const counts = `${progress.events.toLocaleString('en-US')} events read, ${progress.accepted.toLocaleString('en-US')} accepted, ${progress.failed.toLocaleString('en-US')} failed`;
  if (progress.totalBytes === undefined || progress.totalBytes === 0) return `Publishing events: ${counts}`;
  const fraction = Math.min(1, progress.bytesRead / progress.totalBytes);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ${Math.floor(fraction * 100)}%  ${counts}`;
}

/** One plain line per request, for logs and CI (standard error is not a terminal). */
export function batchLogLine(lines: readonly EventLine[], outcome: BatchOutcome, progress: SendProgress): string {
  const first = lines[0]?.line ?? 0;
  const last = lines.at(-1)?.line ?? first;
  return `herald: lines ${first}–${last}: ${outcome.accepted.length} accepted, ${outcome.failed.length} failed (${progress.accepted} accepted, ${progress.failed} failed so far)`;
}

export interface SendSummary {
  file: string;
  events: number;
  accepted: number;
  created: number;
  repeated: number;
  failed: number;
  requests: number;
  failures: LineFailure[];
  /** Set when a request could not be made or was refused as a whole (credentials, server error): nothing after it was sent. */
  stopped?: { line: number; code: string; message: string };
}

export function summaryOf(file: string, progress: SendProgress, failures: readonly LineFailure[], stopped?: SendSummary['stopped']): SendSummary {
  return {
    file,
    events: progress.events,
    accepted: progress.accepted,
    created: progress.accepted - progress.repeated,
    repeated: progress.repeated,
    failed: progress.failed,
    requests: progress.requests,
    failures: [...failures].sort((a, b) => a.line - b.line),
    ...(stopped ? { stopped } : {}),
  };
}

/** A failure as one table row: its line, code, and what is wrong (field details when there are any). */
export function failureRow(failure: LineFailure): { line: number; code: string; problem: string } {
  const problem = failure.errors?.length ? failure.errors.map((issue) => `${issue.field}: ${issue.message}`).join('; ') : failure.message;
  return { line: failure.line, code: failure.code, problem };
}
