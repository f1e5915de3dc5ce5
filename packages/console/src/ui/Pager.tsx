// Server-side paging: where this page sits and links to the pages either side. Only one page of
// rows is ever fetched or rendered, however many the collection holds. A list that pages by cursor
// gives its next page's link (`nextHref`, null on the last page): the server reads a cursor's page
// as cheaply as the first, however deep, where a deep offset is read through every row before it.
import type { Pagination } from '../api/types';

export function Pager({
  pagination,
  count,
  hrefAt,
  label,
  nextHref,
}: {
  pagination: Pagination;
  count: number;
  hrefAt(offset: number): string;
  label: string;
  nextHref?: string | null;
}) {
  const { total, limit, offset } = pagination;
  const first = total === 0 ? 0 : offset + 1;
  const last = offset + count;
  const previous = offset > 0 ? Math.max(0, offset - limit) : undefined;
  const nextLink = nextHref === undefined ? (last < total ? hrefAt(offset + limit) : undefined) : (nextHref ?? undefined);
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
      {nextLink === undefined ? (
        <span class="pager-link" aria-disabled="true">
          Next
        </span>
      ) : (
        <a class="pager-link" href={nextLink} rel="next">
          Next
        </a>
      )}
    </nav>
  );
}
