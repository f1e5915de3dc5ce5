// The Ink views, rendered to an in-memory terminal stream.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderView } from '../src/ui/render.js';

function fakeTerminal(): { stream: NodeJS.WriteStream; output: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  Object.assign(stream, { columns: 120, rows: 40, isTTY: true });
  // eslint-disable-next-line no-control-regex -- stripping ANSI escape sequences from terminal output
  return { stream, output: () => Buffer.concat(chunks).toString('utf8').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '') };
}

describe('renderView', () => {
  it('draws a table with headers, aligned cells and a pagination footer', async () => {
    const terminal = fakeTerminal();
    const data = { list: [{ id: 'billing', enabled: true }, { id: 'audit-log', enabled: false }], count: 2, pagination: { total: 9, limit: 2, offset: 0 } };
    await renderView(data, { kind: 'table', columns: [{ header: 'ID', path: 'id' }, { header: 'ENABLED', path: 'enabled' }] }, terminal.stream);
    const lines = terminal.output().split('\n').map((line) => line.trimEnd()).filter(Boolean);
    expect(lines).toContain('ID         ENABLED');
    expect(lines).toContain('billing    true');
    expect(lines).toContain('audit-log  false');
    expect(lines).toContain('1–2 of 9');
  });

  it('draws a single resource as key/value rows', async () => {
    const terminal = fakeTerminal();
    await renderView({ id: 'billing', hasSecret: true }, { kind: 'record' }, terminal.stream);
    expect(terminal.output()).toMatch(/id\s+billing/);
    expect(terminal.output()).toMatch(/hasSecret\s+true/);
  });
});
