// Server-side paging: where this page sits and links to the pages either side. Only one page of
// rows is ever fetched or rendered, however many the collection holds.
import type { Pagination } from '../api/types';

export function Pager({ pagination, count, hrefAt, label }: { pagination: Pagination; count: number; hrefAt(offset: number): string; label: string }) {
  const { total, limit, offset } = pagination;
  const first = total === 0 ? 0 : offset + 1;
  const last = offset + count;
  const previous = offset > 0 ? Math.max(0, offset - limit) : undefined;
  const next = last < total ? offset + limit : undefined;
  return (
    <nav class="pager" aria-label={label}>
      <span class="pager-position">
        {first}–{last} of {total}
      </span>
      {previous === undefined ? (
        <span class="pager-link" aria-disabled="true">
          Previous
        </span>
      ) : (
        <a class="pager-link" href={hrefAt(previous)} rel="prev">
          Previous
        </a>
      )}
      {next === undefined ? (
        <span class="pager-link" aria-disabled="true">
          Next
        </span>
      ) : (
        <a class="pager-link" href={hrefAt(next)} rel="next">
          Next
        </a>
      )}
    </nav>
  );
}
