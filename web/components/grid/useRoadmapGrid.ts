import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type ClipboardEvent, type FocusEvent, type KeyboardEvent, type MouseEvent, type RefObject } from 'react';
import type { CatalogGroup } from '../../api/catalog';
import { copyBlock, pasteBlock } from './gridClipboard';
import { focusActive, type GridCallbacks, type GridEnv } from './gridEnv';
import { finishEditing, onGridKeyDown } from './gridKeyboard';
import { gridPointer } from './gridSelection';
import { GridStore, type GridRow } from './gridStore';
import { GridWrites } from './gridWrites';

/** The grid's state and handlers: one object for the table's life, so that nothing reading it renders again when the focus moves. */
export interface RoadmapGrid {
  store: GridStore;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
  onFocus: (e: FocusEvent<HTMLElement>) => void;
  onMouseDown: (e: MouseEvent<HTMLElement>) => void;
  onMouseOver: (e: MouseEvent<HTMLElement>) => void;
  onCopy: (e: ClipboardEvent<HTMLElement>) => void;
  onPaste: (e: ClipboardEvent<HTMLElement>) => void;
  /** Commits the in-place editor's text and moves by (rows, cols); Escape passes null. */
  finishEditing: (text: string | null, move: { rows: number; cols: number }) => void;
  retry: (aspectId: string, bucket: string) => void;
  focusActive: () => void;
}

/** The grid made once for a table: its state, its writes and undo history, its handlers. */
function createGrid(tableRef: RefObject<HTMLTableElement | null>, env: Omit<GridEnv, 'store' | 'tableRef'>): { grid: RoadmapGrid; env: GridEnv } {
  const full: GridEnv = { ...env, store: new GridStore(), tableRef };
  const writes = new GridWrites(full);
  const pointer = gridPointer(full);
  const grid: RoadmapGrid = {
    store: full.store,
    onKeyDown: (e) => onGridKeyDown(full, writes, e),
    onFocus: pointer.onFocus,
    onMouseDown: pointer.onMouseDown,
    onMouseOver: pointer.onMouseOver,
    onCopy: (e) => copyBlock(full, writes, e),
    onPaste: (e) => pasteBlock(full, writes, e),
    finishEditing: (text, move) => finishEditing(full, writes, text, move),
    retry: (aspectId, bucket) => writes.retry(aspectId, bucket),
    focusActive: () => focusActive(full),
  };
  return { grid, env: full };
}

/**
 * The roadmap as a spreadsheet grid (docs/decisions/0126-roadmap-grid.md): keyboard movement over
 * the cells with one tab stop (gridKeyboard), in-place editing saved at once and undo and redo of
 * the person's own changes (gridWrites), block selection by pointer (gridSelection), copy and
 * paste of tab-separated text (gridClipboard). The active cell, the selection and the save states
 * live in a store each row reads its own slice of (gridStore), so a move renders only the rows it
 * changes. Answers the grid, the same object for the table's life, and what it last said.
 */
export function useRoadmapGrid(opts: {
  tableRef: RefObject<HTMLTableElement | null>;
  groups: CatalogGroup[];
  timeline: string[];
  editable: boolean;
  serviceId: string | undefined;
  callbacks: GridCallbacks;
}): { grid: RoadmapGrid; message: string } {
  const { tableRef, groups, timeline, editable, serviceId, callbacks } = opts;
  const client = useQueryClient();
  const [message, setMessage] = useState('');
  const options = { serviceId, canWrite: editable && serviceId !== undefined, callbacks, client };
  const [{ grid, env }] = useState(() => createGrid(tableRef, { options, say: setMessage }));
  // The handlers read the options of the table's latest render.
  env.options = options;

  const rows = useMemo(() => {
    const list: GridRow[] = [];
    for (const g of groups) {
      list.push({ kind: 'category', key: `category:${g.category.id}`, category: g.category });
      for (const aspect of g.aspects) list.push({ kind: 'aspect', key: aspect.id, aspect });
    }
    return list;
  }, [groups]);
  // The store learns the rows during render, before the rows read their slice of it.
  if (grid.store.rows !== rows || grid.store.timeline !== timeline) grid.store.setRows(rows, timeline);
  return { grid, message };
}
