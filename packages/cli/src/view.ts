// How a command's result is shown on a terminal: the words that the commands choosing a view, the
// output step and the Ink renderer share, kept apart so each of them imports it and none the other.

export interface Column {
  readonly header: string;
  /** Dotted path into the item, e.g. "pagination.total". */
  readonly path: string;
  /** Drawn only when some row has a value there (e.g. `sequence`, which only ordered subscribers' rows carry). */
  readonly optional?: boolean;
}

export type View =
  | { readonly kind: 'table'; readonly columns: readonly Column[] }
  | { readonly kind: 'record' }
  /** A webhook event: summary, deliveries, and each delivery's attempt history. */
  | { readonly kind: 'event' };
