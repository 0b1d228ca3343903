/**
 * The cursor of the next (older) page of a list read newest first, `before` a row's key: the last
 * row's key when the page is full, null when it is not (then it was the last page).
 */
export function nextBefore<R, K>(rows: readonly R[], limit: number, key: (row: R) => K): K | null {
  const last = rows.at(-1);
  return rows.length === limit && last !== undefined ? key(last) : null;
}
