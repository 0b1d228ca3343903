import type { QueryClient } from '@tanstack/react-query';
import type { RefObject } from 'react';
import type { Aspect } from '../../api/catalog';
import type { CellPos, GridStore } from './gridStore';

export interface GridCallbacks {
  onEditAvailability: (aspect: Aspect, bucket: string) => void;
  onEditAspect: (aspect: Aspect) => void;
  onHistory: (aspect: Aspect, bucket: string) => void;
}

/** The table's options as of its last render: the grid's handlers are made once and read these. */
export interface GridOptions {
  serviceId: string | undefined;
  /** The person may change the cells (an editor, the service not archived) and the grid knows its service. */
  canWrite: boolean;
  callbacks: GridCallbacks;
  client: QueryClient;
}

/**
 * What every part of the grid works with (docs/decisions/0126-roadmap-grid.md): its state, the
 * table's current options, the table element, and the status line under the quarter bar.
 */
export interface GridEnv {
  store: GridStore;
  options: GridOptions;
  tableRef: RefObject<HTMLTableElement | null>;
  /** Says something in the grid's status line (a paste, an undo, a refusal). */
  say: (text: string) => void;
}

/** The element that takes the focus for a cell. */
export const cellSelector = (rowKey: string, col: number) => `[data-cell="${rowKey}|${col}"]`;

/** The cell (row key and column) an element is in, from its `data-cell`. */
export function cellOf(target: EventTarget | null): { key: string; col: number } | null {
  const el = (target as HTMLElement | null)?.closest?.<HTMLElement>('[data-cell]');
  if (!el) return null;
  const raw = el.dataset.cell!;
  const bar = raw.lastIndexOf('|');
  return { key: raw.slice(0, bar), col: Number(raw.slice(bar + 1)) };
}

/** Moves the focus to the active cell; a cell in a gap is focused once its row renders. */
export function focusActive({ store, tableRef }: GridEnv): void {
  const row = store.rows[store.active.row];
  const table = tableRef.current;
  if (!row || !table) return;
  const col = row.kind === 'category' ? 0 : store.active.col;
  const el = table.querySelector<HTMLElement>(cellSelector(row.key, col));
  if (!el) {
    store.pendingFocus = true;
    return;
  }
  store.pendingFocus = false;
  if (document.activeElement !== el) el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

/** Makes `pos` the active cell (extending the selection when `extend`) and focuses it. */
export function moveTo(env: GridEnv, pos: CellPos, extend = false): void {
  env.store.moveTo(pos, extend);
  focusActive(env);
}
