import { useCallback, useMemo } from 'react';

/** What a list loaded a page at a time gives (TanStack Query's infinite query). */
interface Paged<P> {
  data?: { pages: P[] };
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * The rows of every page loaded, in order, and a stable function that asks for the next page
 * unless one is on its way or none is left (what a windowed list calls as its end comes near).
 * `rowsOf` must be stable, a function of the module.
 */
export function usePagedRows<P, T>(pages: Paged<P>, rowsOf: (page: P) => T[]): { rows: T[]; loadMore: () => void } {
  const data = pages.data;
  const rows = useMemo(() => data?.pages.flatMap(rowsOf) ?? [], [data, rowsOf]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return { rows, loadMore };
}
