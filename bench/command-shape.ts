// The shape of a store command's filter, for BENCH_PROFILE_COMMANDS=shape: field names and
// operators kept, values elided, so the profile tells two queries of one collection apart without
// one line per document id. Pure.

/** A filter with every value replaced by `?` and every array by `[…]`; operators and field names kept. */
export function filterShape(filter: unknown): string {
  if (Array.isArray(filter)) return filter.length > 0 && filter.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item)) ? `[${filterShape(filter[0])}…]` : '[…]';
  if (typeof filter !== 'object' || filter === null || filter instanceof Date) return '?';
  const entries = Object.entries(filter as Record<string, unknown>);
  return `{${entries.map(([key, value]) => `${key}:${filterShape(value)}`).join(',')}}`;
}

/** What a command selects: its filter's shape, with a find's sort and limit, and how many statements. */
export function commandShape(command: Record<string, unknown>): string {
  const statements = (list: unknown, field: string): string => {
    if (!Array.isArray(list) || list.length === 0) return '';
    return `${filterShape((list[0] as Record<string, unknown>)[field])}${list.length > 1 ? ` ×${list.length}` : ''}`;
  };
  if ('find' in command) {
    // The driver sends a sort as a Map (its keys' order is the sort's).
    const sortKeys = command.sort instanceof Map ? [...(command.sort as Map<string, unknown>).keys()] : Object.keys(command.sort ?? {});
    const sort = sortKeys.length > 0 ? ` sort ${sortKeys.join(',')}` : '';
    return `${filterShape(command.filter ?? {})}${sort}${command.limit ? ' limit' : ''}`;
  }
  if ('update' in command) return statements(command.updates, 'q');
  if ('delete' in command) return statements(command.deletes, 'q');
  if ('findAndModify' in command) return filterShape(command.query ?? {});
  if ('count' in command) return filterShape(command.query ?? {});
  if ('aggregate' in command) {
    const first = (command.pipeline as Array<Record<string, unknown>> | undefined)?.[0];
    return first && '$match' in first ? `$match ${filterShape(first.$match)}` : '';
  }
  return '';
}
