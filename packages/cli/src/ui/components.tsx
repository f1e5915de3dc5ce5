// Ink components for tables, records and the spinner.
import { useEffect, useState } from 'react';
import { Box, Text } from 'ink';
import type { EventDetailView } from './event-detail.js';

export function Table({ headers, rows, footer }: { headers: readonly string[]; rows: readonly (readonly string[])[]; footer?: string | undefined }) {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  return (
    <Box flexDirection="column">
      <Box>
        {headers.map((header, column) => (
          <Box key={header} width={(widths[column] ?? 0) + 2} flexShrink={0}>
            <Text bold>{header}</Text>
          </Box>
        ))}
      </Box>
      {rows.length === 0 ? <Text dimColor>(none)</Text> : null}
      {rows.map((row, index) => (
        <Box key={index}>
          {row.map((cell, column) => (
            <Box key={column} width={(widths[column] ?? 0) + 2} flexShrink={column === row.length - 1 ? 1 : 0}>
              <Text wrap="truncate-end">{cell}</Text>
            </Box>
          ))}
        </Box>
      ))}
      {footer ? <Text dimColor>{footer}</Text> : null}
    </Box>
  );
}

export function Record({ rows }: { rows: readonly (readonly [string, string])[] }) {
  const width = Math.max(0, ...rows.map(([key]) => key.length));
  return (
    <Box flexDirection="column">
      {rows.map(([key, value]) => (
        <Box key={key}>
          <Box width={width + 2} flexShrink={0}>
            <Text bold>{key}</Text>
          </Box>
          <Text>{value}</Text>
        </Box>
      ))}
    </Box>
  );
}

export function EventDetail({ view }: { view: EventDetailView }) {
  return (
    <Box flexDirection="column">
      <Record rows={view.summary} />
      <Box marginTop={1}>
        <Text bold underline>
          Deliveries
        </Text>
      </Box>
      <Table headers={view.deliveries.headers} rows={view.deliveries.rows} />
      {view.attempts.map(({ title, table }) => (
        <Box key={title} flexDirection="column" marginTop={1}>
          <Text bold underline>
            {title}
          </Text>
          <Table headers={table.headers} rows={table.rows} />
        </Box>
      ))}
    </Box>
  );
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function Spinner({ label }: { label: string }) {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((current) => (current + 1) % frames.length), 80);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text>
      <Text color="cyan">{frames[frame]}</Text> {label}
    </Text>
  );
}
