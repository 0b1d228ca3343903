import type { KeyboardEvent } from 'react';
import { MAX_TEXT_LENGTH } from '../../../common/limits';
import { cellOf, focusActive, moveTo, type GridEnv } from './gridEnv';
import { FIRST_QUARTER_COL } from './gridStore';
import type { GridWrites } from './gridWrites';
import { GRID_MESSAGES as G } from './messages';

/**
 * The row PageDown (`step` 1) or PageUp (-1) moves to from `row`: the furthest aspect row that lies,
 * whole, within one view of the table's panel (less its sticky heading) from the row's top, as the
 * WAI-ARIA grid pattern has it: a screen at a time, whatever the rows' heights. At least the next
 * aspect row; the rows of a screen are always in the page (the row window reaches further).
 */
function pageFrom(env: GridEnv, row: number, step: 1 | -1): number {
  const { store, tableRef } = env;
  const table = tableRef.current;
  const first = store.rowFrom(row, step, true);
  const element = (r: number) => {
    const key = store.rows[r]?.key;
    return key === undefined ? null : (table?.querySelector<HTMLElement>(`[data-cell^="${CSS.escape(key)}|"]`)?.closest('tr') ?? null);
  };
  const from = element(row)?.getBoundingClientRect();
  const panel = table?.parentElement;
  if (!table || !panel || !from) return first;
  const view = panel.clientHeight - (table.tHead?.getBoundingClientRect().height ?? 0);
  let to = first;
  for (let r = first; ;) {
    const next = store.rowFrom(r, step, true);
    const box = next === r ? null : element(next)?.getBoundingClientRect();
    if (!box || (step > 0 ? box.bottom - from.top : from.bottom - box.top) > view) return to;
    to = r = next;
  }
}

/** Opens the in-place editor on the active quarter with `initial` (what was typed), or its text; false where it cannot. */
function startEditing(env: GridEnv, writes: GridWrites, initial: string | null): boolean {
  const { store } = env;
  const pos = store.active;
  const cell = store.quarterCell(pos);
  if (!cell || !env.options.canWrite) return false;
  store.startEditing({ row: pos.row, col: pos.col, initial: initial ?? writes.shownText(cell.aspect, cell.bucket) });
  return true;
}

/** Commits the in-place editor's text (Escape passes null) and moves by (rows, cols). */
export function finishEditing(env: GridEnv, writes: GridWrites, text: string | null, move: { rows: number; cols: number }): void {
  const { store } = env;
  const editing = store.editing;
  if (!editing) return;
  const pos = { row: editing.row, col: editing.col };
  store.startEditing(null);
  if (text !== null) {
    const cell = store.quarterCell(pos);
    if (cell) {
      const edits = writes.editsOf([{ ...cell, value: text.slice(0, MAX_TEXT_LENGTH) }]);
      if (edits.length) void writes.write(edits, 'new');
    }
  }
  const col = pos.col + move.cols;
  // Tab past a row's last quarter goes on to the next aspect's first (Shift+Tab back, to the one
  // before's last), as in a spreadsheet; at the roadmap's ends it stays.
  if (move.cols && (col >= store.columns || col < FIRST_QUARTER_COL)) {
    const row = store.rowFrom(pos.row, move.cols, true);
    moveTo(env, row === pos.row ? pos : { row, col: move.cols > 0 ? FIRST_QUARTER_COL : store.columns - 1 });
    return;
  }
  const row = move.rows ? store.rowFrom(pos.row, move.rows, true) : pos.row;
  moveTo(env, { row, col: Math.min(store.columns - 1, Math.max(0, col)) });
}

/** The keys that move the active cell (Shift with them selects): true when `e` was one of them. */
function moveKey(env: GridEnv, e: KeyboardEvent<HTMLElement>, ctrl: boolean): boolean {
  const { store } = env;
  const { row, col } = store.active;
  const last = store.rows.length;
  switch (e.key) {
    case 'ArrowDown':
    case 'ArrowUp': {
      const step = e.key === 'ArrowDown' ? 1 : -1;
      const to = ctrl ? (step > 0 ? store.rowFrom(last, -1, true) : store.rowFrom(-1, 1, true)) : store.rowFrom(row, step, e.shiftKey);
      moveTo(env, { row: to, col }, e.shiftKey);
      return true;
    }
    case 'ArrowRight':
    case 'ArrowLeft': {
      const step = e.key === 'ArrowRight' ? 1 : -1;
      moveTo(env, { row, col: ctrl ? (step > 0 ? store.columns - 1 : 0) : col + step }, e.shiftKey);
      return true;
    }
    case 'Home':
      moveTo(env, ctrl ? { row: store.rowFrom(-1, 1, false), col: 0 } : { row, col: 0 }, e.shiftKey);
      return true;
    case 'End':
      moveTo(env, ctrl ? { row: store.rowFrom(last, -1, false), col: store.columns - 1 } : { row, col: store.columns - 1 }, e.shiftKey);
      return true;
    case 'PageDown':
    case 'PageUp': {
      moveTo(env, { row: pageFrom(env, row, e.key === 'PageDown' ? 1 : -1), col }, e.shiftKey);
      return true;
    }
    default:
      return false;
  }
}

/**
 * The grid's keys (docs/decisions/0126-roadmap-grid.md): moving and selecting, editing in place,
 * Edit Availability, history, clearing, select all, undo and redo. Tab leaves the grid (one tab
 * stop), except into the buttons of the cell it is on.
 */
export function onGridKeyDown(env: GridEnv, writes: GridWrites, e: KeyboardEvent<HTMLElement>): void {
  const { store, options, say } = env;
  const target = e.target as HTMLElement;
  if (target.closest('.roadmap-cell-editor')) return;
  const cell = cellOf(target);
  // A button inside a cell that holds several (the aspect's handle and title, a category's
  // actions): the keys are the button's; Escape goes back to the cell.
  if (!cell || target.dataset.cell === undefined) {
    if (e.key === 'Escape' && cell) {
      e.preventDefault();
      focusActive(env);
    }
    return;
  }
  const ctrl = e.ctrlKey || e.metaKey;
  const canWrite = options.canWrite;
  const handled = () => {
    e.preventDefault();
    e.stopPropagation();
  };
  if (moveKey(env, e, ctrl)) return handled();
  if (e.key === 'Tab') return;
  if (e.key === 'Escape') {
    if (store.anchor) {
      store.moveTo(store.active, false);
      handled();
    }
    return;
  }
  if (ctrl && !e.altKey && (e.key === 'z' || e.key === 'Z' || e.key === 'y')) {
    if (!canWrite) say(G.readOnly);
    else void writes.undoOrRedo(e.key === 'y' || e.shiftKey ? 'redo' : 'undo');
    return handled();
  }
  if (ctrl && e.key === 'a') {
    store.selectBlock({ row: store.rowFrom(-1, 1, true), col: FIRST_QUARTER_COL }, { row: store.rowFrom(store.rows.length, -1, true), col: store.columns - 1 });
    return handled();
  }
  const quarter = store.quarterCell(store.active);
  if (e.altKey && (e.key === 'h' || e.key === 'H' || e.code === 'KeyH')) {
    if (quarter) options.callbacks.onHistory(quarter.aspect, quarter.bucket);
    return handled();
  }
  if (store.rows[store.active.row]?.kind === 'category' || store.active.col < FIRST_QUARTER_COL) {
    // A cell of buttons: Enter or F2 goes to its first button (Tab then reaches the others).
    if (e.key === 'Enter' || e.key === 'F2') {
      const first = target.querySelector<HTMLElement>('button');
      if (first) {
        first.focus();
        return handled();
      }
    }
    if ((e.key === 'Delete' || e.key === 'Backspace') && store.hasBlock() && canWrite) {
      writes.clearSelection();
      return handled();
    }
    return;
  }
  if (!quarter) return;
  if (e.key === 'Enter' && ctrl) {
    // The spec's Edit Availability, one keystroke away.
    if (canWrite) options.callbacks.onEditAvailability(quarter.aspect, quarter.bucket);
    return handled();
  }
  const typed = e.key.length === 1 && !ctrl && !e.altKey;
  if (!canWrite) {
    if (e.key === 'Enter' || e.key === 'F2' || e.key === 'Delete' || e.key === 'Backspace' || typed) {
      say(G.readOnly);
      return handled();
    }
    return;
  }
  if (e.key === 'Enter' || e.key === 'F2') {
    startEditing(env, writes, null);
    return handled();
  }
  if (e.key === 'Delete' || e.key === 'Backspace') {
    writes.clearSelection();
    return handled();
  }
  if (typed) {
    // Typing starts editing the cell with what was typed.
    startEditing(env, writes, e.key);
    return handled();
  }
}
