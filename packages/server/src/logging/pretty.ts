// Human-readable log lines for a developer's terminal: `12:00:01.234 INFO  message key=value …`,
// coloured by level. It formats pino's JSON after pino has redacted it, so secrets stay out exactly
// as in JSON logs. Pure apart from the stream wrapper; JSON stays the format for anything that is
// not a terminal (files, collectors, pipes).
import { Writable } from 'node:stream';

const LEVELS: Record<number, { name: string; color: number }> = {
  10: { name: 'TRACE', color: 90 },
  20: { name: 'DEBUG', color: 36 },
  30: { name: 'INFO ', color: 32 },
  40: { name: 'WARN ', color: 33 },
  50: { name: 'ERROR', color: 31 },
  60: { name: 'FATAL', color: 35 },
};
/** Fields every line has, shown in the prefix or not at all. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

function paint(text: string, color: number, colors: boolean): string {
  return colors ? `\u001b[${color}m${text}\u001b[0m` : text;
}

function show(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** One pino JSON line as a readable line; a line that is not JSON passes through unchanged. */
export function prettyLine(line: string, colors: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level ?? '').padEnd(5), color: 37 };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const rest = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${paint(key, 90, colors)}=${show(value)}`)
    .join(' ');
  return [paint(time, 90, colors), paint(level.name, level.color, colors), String(entry.msg ?? ''), rest].filter((part) => part !== '').join(' ');
}

/** A destination for pino that writes readable lines to `out`. */
export function prettyStream(out: NodeJS.WritableStream, colors: boolean): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(`${prettyLine(line, colors)}\n`);
      done();
    },
  });
}
