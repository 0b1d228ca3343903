import type { FocusEvent, MouseEvent } from 'react';
import { cellOf, focusActive, type GridEnv } from './gridEnv';
import type { CellPos } from './gridStore';

/**
 * The grid's pointer and focus (docs/decisions/0126-roadmap-grid.md): a cell focused otherwise
 * than by the grid's keys (a click, Tab back into the grid) becomes the active cell; Shift+click
 * selects a block from the active cell, and a drag over aspect rows selects the block it spans.
 */
export function gridPointer(env: GridEnv) {
  const { store } = env;
  /** Where a drag started, while the button is held. */
  let dragging: CellPos | null = null;

  /** The row and column of the cell an event is in, when it is a cell of an aspect row. */
  const aspectCell = (target: EventTarget | null): CellPos | null => {
    const cell = cellOf(target);
    const row = cell ? store.indexOf(cell.key) : undefined;
    if (!cell || row === undefined || store.rows[row]!.kind !== 'aspect') return null;
    return { row, col: cell.col };
  };

  const onFocus = (e: FocusEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    if (target.dataset.cell === undefined) return;
    const cell = cellOf(target);
    const row = cell ? store.indexOf(cell.key) : undefined;
    if (!cell || row === undefined) return;
    if (store.active.row !== row || (store.rows[row]!.kind === 'aspect' && store.active.col !== cell.col)) {
      store.moveTo({ row, col: cell.col }, false);
    }
  };

  const onMouseDown = (e: MouseEvent<HTMLElement>) => {
    if (e.button !== 0) return;
    const pos = aspectCell(e.target);
    // The drag handle reorders rows; the editor is text: neither selects a block.
    if (!pos || (e.target as HTMLElement).closest('.roadmap-cell-editor, .roadmap-drag-handle')) return;
    if (e.shiftKey) {
      e.preventDefault();
      store.moveTo(pos, true);
      focusActive(env);
      return;
    }
    dragging = pos;
    const up = () => {
      dragging = null;
      window.removeEventListener('mouseup', up);
    };
    window.addEventListener('mouseup', up);
  };

  const onMouseOver = (e: MouseEvent<HTMLElement>) => {
    const from = dragging;
    if (!from || !(e.buttons & 1)) return;
    const pos = aspectCell(e.target);
    if (!pos || (pos.row === store.active.row && pos.col === store.active.col)) return;
    store.selectBlock(from, pos);
    focusActive(env);
  };

  return { onFocus, onMouseDown, onMouseOver };
}
