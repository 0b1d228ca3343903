const cells = (n: number) => `${n} ${n === 1 ? 'cell' : 'cells'}`;
const rows = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;
const columns = (n: number) => `${n} ${n === 1 ? 'column' : 'columns'}`;

/** What the roadmap grid says: under the quarter bar, and to assistive technology. */
export const GRID_MESSAGES = {
  readOnly: 'This roadmap is read-only here: you can move around and copy, not change it.',
  nothingToUndo: 'Nothing to undo.',
  nothingToRedo: 'Nothing to redo.',
  undone: (n: number) => `Undone: ${cells(n)}.`,
  redone: (n: number) => `Redone: ${cells(n)}.`,
  undoRefused: (title: string, bucket: string, n: number) =>
    `Cannot undo: ${title} in ${bucket}${n > 1 ? ` and ${cells(n - 1)} more` : ''} changed since, by someone else. Nothing was undone; their change stays.`,
  redoRefused: (title: string, bucket: string, n: number) =>
    `Cannot redo: ${title} in ${bucket}${n > 1 ? ` and ${cells(n - 1)} more` : ''} changed since, by someone else. Nothing was redone; their change stays.`,
  cleared: (n: number) => `Cleared ${cells(n)}.`,
  copied: (n: number) => `Copied ${cells(n)}.`,
  /** `n` cells pasted, of which `unchanged` already held the pasted value. */
  pasted: (n: number, unchanged = 0) => `Pasted ${cells(n)}${unchanged ? `, ${unchanged} unchanged` : ''}.`,
  pastedNothingNew: 'The pasted values are those already there: nothing changed.',
  pasteRefused: (message: string, conflicts: number) =>
    conflicts
      ? `Nothing was pasted: ${cells(conflicts)} changed meanwhile, by someone else. Retry the marked cells or paste again.`
      : `Nothing was pasted: ${message}`,
  notSaved: (message: string) => `Not saved: ${message}`,
  leftOut: (rowsOut: number, colsOut: number, lastQuarter: string) => {
    const parts = [rowsOut ? `${rows(rowsOut)} past the last aspect` : '', colsOut ? `${columns(colsOut)} past the last quarter (${lastQuarter})` : ''];
    const said = parts.filter(Boolean).join(' and ');
    return said ? `Left out: ${said}.` : '';
  },
  changedBySomeoneElse: (current: string) => `Changed by someone else to “${current || '-'}”. Retry to overwrite it with yours.`,
  failed: 'Not saved',
  saving: 'Saving',
  saved: 'Saved',
} as const;
