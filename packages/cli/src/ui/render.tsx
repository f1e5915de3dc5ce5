// Terminal rendering with Ink; loaded only on a TTY by ../output.ts.
import { render } from 'ink';
import type { View } from '../view.js';
import { paginationSummary, recordRows, shownColumns, tableRows } from './cells.js';
import { EventDetail, Record, Spinner, Table } from './components.js';
import { eventDetailView } from './event-detail.js';

function viewElement(data: unknown, view: View) {
  switch (view.kind) {
    case 'table': {
      const columns = shownColumns(data, view.columns);
      return <Table headers={columns.map((column) => column.header)} rows={tableRows(data, columns)} footer={paginationSummary(data)} />;
    }
    case 'record':
      return <Record rows={recordRows(data)} />;
    case 'event':
      return <EventDetail view={eventDetailView(data)} />;
  }
}

export async function renderView(data: unknown, view: View, stdout: NodeJS.WriteStream = process.stdout): Promise<void> {
  const element = viewElement(data, view);
  const instance = render(element, { stdout, patchConsole: false, exitOnCtrlC: false });
  instance.unmount();
  await instance.waitUntilExit();
}

/** The spinner draws on stderr so stdout carries only the result. */
export async function withSpinner<T>(label: string, work: () => Promise<T>): Promise<T> {
  const instance = render(<Spinner label={label} />, { stdout: process.stderr, patchConsole: false, exitOnCtrlC: false });
  try {
    return await work();
  } finally {
    instance.clear();
    instance.unmount();
  }
}

export interface ProgressLine {
  update(label: string): void;
  stop(): void;
}

/** A spinner on stderr whose label can change while the work runs (e.g. `recover --wait`). */
export function startProgress(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  const instance = render(<Spinner label={label} />, { stdout: stream, patchConsole: false, exitOnCtrlC: false });
  return {
    update: (next) => instance.rerender(<Spinner label={next} />),
    stop() {
      instance.clear();
      instance.unmount();
    },
  };
}
