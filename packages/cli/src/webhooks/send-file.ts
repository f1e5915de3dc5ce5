// `herald webhooks events send --file F`: reads an NDJSON file (or standard input) a line at a time
// and publishes its events in batches (POST /api/v0.9/webhook-events/batch), so a file of any size
// is never held in memory. Progress goes to standard error (a bar on a terminal, a line per request
// otherwise); the summary, with every failed line, to standard output.
import { createReadStream, fstatSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ActiveInstance } from '../config/instance.js';
import { CliError, ExitCode } from '../errors.js';
import { describeHttpError, sendApiRequest } from '../http/client.js';
import { writeErrorLine, writeOut } from '../io.js';
import { wantsJson } from '../output.js';
import type { Column } from '../view.js';
import {
  BatchBuilder,
  batchBody,
  batchLogLine,
  failureRow,
  lineProblem,
  outcomeOf,
  progressText,
  refusalOfAll,
  splitRefusal,
  summaryOf,
  type BatchOutcome,
  type EventLine,
  type LineFailure,
  type SendProgress,
  type SendSummary,
} from './event-batches.js';

const ENDPOINT = '/api/v0.9/webhook-events/batch';

export interface SendFileOptions {
  /** A path, or `-` for standard input. */
  readonly file: string;
  readonly batchSize: number;
  readonly json: boolean;
}

const failureColumns: readonly Column[] = [
  { header: 'LINE', path: 'line' },
  { header: 'CODE', path: 'code' },
  { header: 'PROBLEM', path: 'problem' },
];

/** The file opened for reading, with its size; a path that cannot be read is an input error naming it. */
function openInput(file: string): { stream: Readable; size: number | undefined } {
  if (file === '-') return { stream: process.stdin, size: undefined };
  try {
    const fd = openSync(file, 'r');
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    return { stream: createReadStream('', { fd }), size: stat.isFile() ? stat.size : undefined };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : message;
    throw new CliError('INPUT_UNREADABLE', `--file: cannot read "${file}": ${reason}`, ExitCode.input);
  }
}

/** A request refused as a whole for a reason no other request would escape: stop there. */
class Stop extends Error {
  constructor(readonly code: string, message: string, readonly exitCode: CliError['exitCode']) {
    super(message);
  }
}

/**
 * Sends one batch; a refusal naming some of its events (the JSON text rules of a body apply to the
 * whole body) fails those lines and sends the others again. Stops on credentials, scope, server
 * errors and anything else that would refuse every request alike.
 */
async function sendBatch(instance: ActiveInstance, lines: readonly EventLine[], countRequest: () => void): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { accepted: [], failed: [] };
  let pending = [...lines];
  while (pending.length > 0) {
    countRequest();
    let response;
    try {
      response = await sendApiRequest(instance, { method: 'POST', endpoint: ENDPOINT, jsonText: batchBody(pending) });
    } catch (error) {
      if (error instanceof CliError) throw new Stop(error.code, error.message, error.exitCode);
      throw error;
    }
    const text = response.body.toString('utf8');
    let data: unknown;
    try {
      data = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (response.statusCode === 200) {
      const answered = outcomeOf(pending, data);
      outcome.accepted.push(...answered.accepted);
      outcome.failed.push(...answered.failed);
      return outcome;
    }
    const { failed, rest } = response.statusCode === 400 ? splitRefusal(pending, data) : { failed: [], rest: pending };
    if (failed.length === 0) {
      if (response.statusCode === 400 || response.statusCode === 413) {
        // About the request, not an event it names: every line of it fails with that answer.
        outcome.failed.push(...refusalOfAll(pending, data));
        return outcome;
      }
      throw new Stop(`HTTP_${response.statusCode}`, describeHttpError(response.statusCode, response.body), ExitCode.failed);
    }
    outcome.failed.push(...failed);
    pending = rest;
  }
  return outcome;
}

async function printSummary(summary: SendSummary, json: boolean): Promise<void> {
  if (wantsJson(json)) {
    await writeOut(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  const ui = await import('../ui/render.js');
  const { failures, stopped, ...counts } = summary;
  await ui.renderView({ ...counts, ...(stopped ? { stopped: `line ${stopped.line}: ${stopped.code}` } : {}) }, { kind: 'record' });
  if (failures.length > 0) {
    await writeOut('\nFailed lines:\n');
    await ui.renderView({ list: failures.map(failureRow) }, { kind: 'table', columns: failureColumns });
  }
}

export async function sendFile(instance: ActiveInstance, options: SendFileOptions): Promise<number> {
  const { stream, size } = openInput(options.file);
  const progress: SendProgress = { events: 0, accepted: 0, repeated: 0, failed: 0, requests: 0, bytesRead: 0, totalBytes: size };
  const failures: LineFailure[] = [];
  const ui = process.stderr.isTTY ? await import('../ui/render.js') : undefined;
  const bar = ui?.startProgress(progressText(progress));
  const record = (lines: readonly EventLine[], outcome: BatchOutcome) => {
    progress.accepted += outcome.accepted.length;
    progress.repeated += outcome.accepted.filter((accepted) => !accepted.created).length;
    progress.failed += outcome.failed.length;
    failures.push(...outcome.failed);
    if (bar) bar.update(progressText(progress));
    else writeErrorLine(batchLogLine(lines, outcome, progress));
  };
  const send = async (lines: readonly EventLine[]) => record(lines, await sendBatch(instance, lines, () => (progress.requests += 1)));

  const builder = new BatchBuilder(options.batchSize);
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  let unsent: number | undefined;
  let stopped: SendSummary['stopped'];
  let stopExit: CliError['exitCode'] = ExitCode.failed;
  try {
    for await (const raw of reader) {
      lineNumber += 1;
      // A file's own count is exact (line ends of any kind); standard input has no size to show anyway.
      progress.bytesRead = 'bytesRead' in stream && typeof stream.bytesRead === 'number' ? stream.bytesRead : progress.bytesRead + Buffer.byteLength(raw) + 1;
      // Editors on Windows start a file with a byte order mark, which JSON.parse refuses.
      const text = (lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text === '') continue;
      progress.events += 1;
      const problem = lineProblem(text);
      if (problem) {
        progress.failed += 1;
        failures.push({ line: lineNumber, ...problem });
        continue;
      }
      const closed = builder.add({ line: lineNumber, text, bytes: Buffer.byteLength(text) });
      if (closed) {
        unsent = closed[0]!.line;
        await send(closed);
        unsent = undefined;
      }
    }
    const last = builder.flush();
    if (last) {
      unsent = last[0]!.line;
      await send(last);
      unsent = undefined;
    }
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    stopped = { line: unsent ?? lineNumber, code: error.code, message: error.message };
    stopExit = error.exitCode;
  } finally {
    reader.close();
    stream.destroy();
    bar?.stop();
  }

  if (progress.events === 0 && !stopped) {
    throw new CliError('NO_EVENTS', `--file: "${options.file}" holds no events (one JSON object per line)`, ExitCode.input);
  }
  await printSummary(summaryOf(options.file === '-' ? '(standard input)' : options.file, progress, failures, stopped), options.json);
  if (stopped) {
    throw new CliError(
      stopped.code,
      `${stopped.message}\nStopped at line ${stopped.line}: from it on, no line is known to be published (those before it are in the summary). ` +
        'Lines with an idempotencyKey can be sent again safely: one already published is not published twice.',
      stopExit,
    );
  }
  if (progress.failed > 0) {
    writeErrorLine(`herald: ${progress.failed} of ${progress.events} events were not published (see the failed lines)`);
    return ExitCode.failed;
  }
  return ExitCode.ok;
}
