import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState, type ClipboardEvent, type KeyboardEvent, type MouseEvent, type RefObject } from 'react';
import { htmlToText } from '../../../common/richText';
import { MAX_TEXT_LENGTH } from '../../../common/limits';
import { messageOf } from '../../api/client';
import {
  conflictingCells,
  conflictingValue,
  writeCell,
  writeCells,
  type Aspect,
  type CatalogGroup,
  type CellChange,
  type FullService,
} from '../../api/catalog';
import { serviceKeys } from '../../api/services';
import { FIRST_QUARTER_COL, GridStore, type CellPos, type GridRow } from './gridStore';
import { parseTsv, toTsv } from './tsv';
import { GRID_MESSAGES as G } from './messages';

/** One cell's change of a step the person can undo: its text before and after. */
interface CellEdit {
  aspectId: string;
  bucket: string;
  before: string;
  after: string;
}

/** A step of the undo history: one cell typed, or a whole paste or clearing. */
type Step = CellEdit[];

/** How many rows PageUp and PageDown move. */
const PAGE_ROWS = 10;
/** How long a cell says "saved" once its change is stored. */
const SAVED_MS = 1500;

export interface GridCallbacks {
  onEditAvailability: (aspect: Aspect, bucket: string) => void;
  onEditAspect: (aspect: Aspect) => void;
  onHistory: (aspect: Aspect, bucket: string) => void;
}

export interface RoadmapGrid {
  store: GridStore;
  /** What the grid last said (a paste, an undo, a refusal): shown and announced under the quarter bar. */
  message: string;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
  onFocus: (e: React.FocusEvent<HTMLElement>) => void;
  onMouseDown: (e: MouseEvent<HTMLElement>) => void;
  onMouseOver: (e: MouseEvent<HTMLElement>) => void;
  onCopy: (e: ClipboardEvent<HTMLElement>) => void;
  onPaste: (e: ClipboardEvent<HTMLElement>) => void;
  /** Commits the in-place editor's text and moves by (rows, cols); Escape passes null. */
  finishEditing: (text: string | null, move: { rows: number; cols: number }) => void;
  retry: (aspectId: string, bucket: string) => void;
  focusActive: () => void;
}

/** The element that takes the focus for a cell. */
export const cellSelector = (rowKey: string, col: number) => `[data-cell="${rowKey}|${col}"]`;

function cellOf(target: EventTarget | null): { key: string; col: number } | null {
  const el = (target as HTMLElement | null)?.closest?.<HTMLElement>('[data-cell]');
  if (!el) return null;
  const raw = el.dataset.cell!;
  const bar = raw.lastIndexOf('|');
  return { key: raw.slice(0, bar), col: Number(raw.slice(bar + 1)) };
}

/** The cell's text as the grid shows it (what is being saved, else what is stored). */
function shownText(store: GridStore, row: GridRow, col: number): string {
  if (row.kind !== 'aspect') return col === 0 ? row.category.name : '';
  if (col === 0) return row.aspect.title;
  if (col === 1) return htmlToText(row.aspect.description);
  const bucket = store.timeline[col - FIRST_QUARTER_COL]!;
  return store.status(row.aspect.id, bucket)?.value ?? row.aspect.availabilities[bucket] ?? '';
}

const storedText = (aspect: Aspect, bucket: string) => aspect.availabilities[bucket] ?? '';

/**
 * The roadmap as a spreadsheet grid (docs/decisions/0126-roadmap-grid.md): keyboard movement over
 * the cells with one tab stop, in-place editing saved at once, block selection, copy and paste of
 * tab-separated text, clearing, and undo and redo of the person's own changes.
 */
export function useRoadmapGrid(opts: {
  tableRef: RefObject<HTMLTableElement | null>;
  groups: CatalogGroup[];
  timeline: string[];
  editable: boolean;
  serviceId: string | undefined;
  callbacks: GridCallbacks;
}): RoadmapGrid {
  const { tableRef, groups, timeline, editable, serviceId, callbacks } = opts;
  const client = useQueryClient();
  const [store] = useState(() => new GridStore());
  const [message, setMessage] = useState('');
  const undoStack = useRef<Step[]>([]);
  const redoStack = useRef<Step[]>([]);
  const dragging = useRef<CellPos | null>(null);
  const cb = useRef(callbacks);
  cb.current = callbacks;
  const canWrite = editable && serviceId !== undefined;

  const rows = useMemo(() => {
    const list: GridRow[] = [];
    for (const g of groups) {
      list.push({ kind: 'category', key: `category:${g.category.id}`, category: g.category });
      for (const aspect of g.aspects) list.push({ kind: 'aspect', key: aspect.id, aspect });
    }
    return list;
  }, [groups]);
  // The store learns the rows during render, before the rows read their slice of it.
  if (store.rows !== rows || store.timeline !== timeline) store.setRows(rows, timeline);

  const say = useCallback((text: string) => setMessage(text), []);

  /** Moves the focus to the active cell; a cell in a gap is focused once its row renders. */
  const focusActive = useCallback(() => {
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
  }, [store, tableRef]);

  const moveTo = useCallback(
    (pos: CellPos, extend = false) => {
      store.moveTo(pos, extend);
      focusActive();
    },
    [store, focusActive],
  );

  /** The next row from `from` in `step`'s direction, aspect rows only when `aspectsOnly`. */
  const rowFrom = useCallback(
    (from: number, step: number, aspectsOnly: boolean) => {
      let i = from + step;
      while (aspectsOnly && i >= 0 && i < store.rows.length && store.rows[i]!.kind !== 'aspect') i += Math.sign(step);
      return i < 0 || i >= store.rows.length ? from : i;
    },
    [store],
  );

  /** Aspect and quarter of a cell, when it is a quarter cell of an aspect row. */
  const quarterCell = useCallback(
    (pos: CellPos): { aspect: Aspect; bucket: string } | null => {
      const row = store.rows[pos.row];
      if (row?.kind !== 'aspect' || pos.col < FIRST_QUARTER_COL) return null;
      const bucket = store.timeline[pos.col - FIRST_QUARTER_COL];
      return bucket ? { aspect: row.aspect, bucket } : null;
    },
    [store],
  );

  /** Shows the new texts in the catalog at once, before the server answers. */
  const showInCatalog = useCallback(
    (cells: { aspectId: string; bucket: string; value: string }[]) => {
      if (!serviceId) return;
      const key = serviceKeys.full(serviceId);
      const data = client.getQueryData<FullService>(key);
      if (!data) return;
      const byAspect = new Map<string, { bucket: string; value: string }[]>();
      for (const c of cells) byAspect.set(c.aspectId, [...(byAspect.get(c.aspectId) ?? []), c]);
      const aspects = data.resolved_data.aspects.map((a) => {
        const changes = byAspect.get(a.id);
        if (!changes) return a;
        const availabilities = { ...a.availabilities };
        for (const c of changes) {
          if (c.value) availabilities[c.bucket] = c.value;
          else delete availabilities[c.bucket];
        }
        return { ...a, availabilities };
      });
      client.setQueryData<FullService>(key, { ...data, resolved_data: { ...data.resolved_data, aspects } });
    },
    [client, serviceId],
  );

  const settle = useCallback(
    (cells: { aspectId: string; bucket: string }[]) => {
      setTimeout(() => {
        store.setStatuses(cells.filter((c) => store.status(c.aspectId, c.bucket)?.state === 'saved').map((c) => ({ ...c, status: null })));
      }, SAVED_MS);
      void client.invalidateQueries({ queryKey: serviceKeys.all });
    },
    [client, store],
  );

  /**
   * Writes cells (one through the single-cell write, several in one batch), each expected to hold
   * `before`; records the step for undo when `record`. Answers whether it was stored.
   */
  const write = useCallback(
    async (edits: CellEdit[], how: { record: 'undo' | 'redo' | 'new' | 'none' }): Promise<{ ok: true } | { ok: false; err: unknown }> => {
      if (!serviceId || !edits.length) return { ok: true };
      store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: { state: 'saving', value: e.after, before: e.before } })));
      showInCatalog(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, value: e.after })));
      const change = (e: CellEdit): CellChange => ({ aspectId: e.aspectId, timeBucket: e.bucket, value: e.after, expectedValue: e.before || null });
      try {
        if (edits.length === 1) await writeCell(change(edits[0]!));
        else await writeCells(serviceId, edits.map(change));
      } catch (err) {
        showInCatalog(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, value: e.before })));
        if (how.record === 'undo' || how.record === 'redo') {
          // Nothing of an undo or redo stays on screen when it is refused: the cells keep what is stored.
          store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: null })));
        } else {
          const conflicts = conflictingCells(err);
          const single = edits.length === 1 ? conflictingValue(err) : undefined;
          store.setStatuses(
            edits.map((e) => {
              const theirs = conflicts?.find((c) => c.aspect_id === e.aspectId && c.time_bucket === e.bucket);
              const current = theirs ? (theirs.current ?? '') : single;
              const text = current !== undefined ? G.changedBySomeoneElse(current) : messageOf(err);
              return { aspectId: e.aspectId, bucket: e.bucket, status: { state: 'failed', value: e.after, before: current ?? e.before, message: text } };
            }),
          );
        }
        return { ok: false, err };
      }
      store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: { state: 'saved', value: e.after, before: e.before } })));
      if (how.record === 'new') {
        undoStack.current.push(edits);
        redoStack.current = [];
      } else if (how.record === 'undo') redoStack.current.push(edits.map((e) => ({ ...e, before: e.after, after: e.before })));
      else if (how.record === 'redo') undoStack.current.push(edits);
      settle(edits);
      return { ok: true };
    },
    [serviceId, store, showInCatalog, settle],
  );

  /** The edits that set `cells` to `values`, leaving out the cells already holding them. */
  const editsOf = useCallback(
    (targets: { aspect: Aspect; bucket: string; value: string }[]): CellEdit[] =>
      targets
        .map((t) => {
          const status = store.status(t.aspect.id, t.bucket);
          // A cell still being saved or failed: the change starts from what is stored (or what someone else stored).
          const before = status && status.state !== 'saved' ? status.before : storedText(t.aspect, t.bucket);
          return { aspectId: t.aspect.id, bucket: t.bucket, before, after: t.value.trim() };
        })
        .filter((e) => e.before !== e.after || store.status(e.aspectId, e.bucket)?.state === 'failed'),
    [store],
  );

  const finishEditing = useCallback(
    (text: string | null, move: { rows: number; cols: number }) => {
      const editing = store.editing;
      if (!editing) return;
      const pos = { row: editing.row, col: editing.col };
      store.startEditing(null);
      if (text !== null) {
        const cell = quarterCell(pos);
        if (cell) {
          const edits = editsOf([{ ...cell, value: text.slice(0, MAX_TEXT_LENGTH) }]);
          if (edits.length) void write(edits, { record: 'new' });
        }
      }
      const row = move.rows ? rowFrom(pos.row, move.rows, true) : pos.row;
      moveTo({ row, col: Math.min(store.columns - 1, Math.max(0, pos.col + move.cols)) });
    },
    [store, quarterCell, editsOf, write, rowFrom, moveTo],
  );

  const retry = useCallback(
    (aspectId: string, bucket: string) => {
      const status = store.status(aspectId, bucket);
      if (status?.state !== 'failed') return;
      void write([{ aspectId, bucket, before: status.before, after: status.value }], { record: 'new' });
    },
    [store, write],
  );

  /** The selected block's quarter cells (or the active cell's), row by row. */
  const blockCells = useCallback(() => {
    const sel = store.selection();
    const cells: { aspect: Aspect; bucket: string }[] = [];
    for (let r = sel.top; r <= sel.bottom; r++) {
      for (let c = Math.max(sel.left, FIRST_QUARTER_COL); c <= sel.right; c++) {
        const cell = quarterCell({ row: r, col: c });
        if (cell) cells.push(cell);
      }
    }
    return cells;
  }, [store, quarterCell]);

  const clearSelection = useCallback(() => {
    const edits = editsOf(blockCells().map((c) => ({ ...c, value: '' })));
    if (!edits.length) return;
    void write(edits, { record: 'new' }).then((r) => say(r.ok ? G.cleared(edits.length) : G.notSaved(messageOf(r.err))));
  }, [editsOf, blockCells, write, say]);

  const undoOrRedo = useCallback(
    async (which: 'undo' | 'redo') => {
      const stack = which === 'undo' ? undoStack.current : redoStack.current;
      const step = stack.pop();
      if (!step) {
        say(which === 'undo' ? G.nothingToUndo : G.nothingToRedo);
        return;
      }
      // Undo puts back `before`, expecting `after` still stored; redo the other way round.
      const edits = step.map((e) => (which === 'undo' ? { ...e, before: e.after, after: e.before } : e));
      const result = await write(edits, { record: which });
      if (result.ok) {
        say(which === 'undo' ? G.undone(edits.length) : G.redone(edits.length));
        return;
      }
      const conflicts = conflictingCells(result.err);
      const single = edits.length === 1 ? conflictingValue(result.err) : undefined;
      if (conflicts?.length || single !== undefined) {
        const first = conflicts?.[0] ?? { aspect_id: edits[0]!.aspectId, time_bucket: edits[0]!.bucket };
        const row = store.indexOf(first.aspect_id);
        const title = row === undefined ? '' : ((store.rows[row] as { aspect?: Aspect }).aspect?.title ?? '');
        say(
          which === 'undo' ? G.undoRefused(title, first.time_bucket, conflicts?.length ?? 1) : G.redoRefused(title, first.time_bucket, conflicts?.length ?? 1),
        );
      } else {
        // Not a conflict (the network, say): the step stays, to be tried again.
        stack.push(step);
        say(G.notSaved(messageOf(result.err)));
      }
    },
    [write, say, store],
  );

  const onPaste = useCallback(
    (e: ClipboardEvent<HTMLElement>) => {
      if ((e.target as HTMLElement).closest('textarea, input')) return;
      e.preventDefault();
      if (!canWrite) {
        say(G.readOnly);
        return;
      }
      const block = parseTsv(e.clipboardData.getData('text/plain'));
      if (!block.length) return;
      const sel = store.selection();
      const top = sel.top;
      const left = Math.max(sel.left, FIRST_QUARTER_COL);
      // The aspect rows from the block's top down (category rows are passed over).
      const aspectRows: number[] = [];
      for (let r = top; r < store.rows.length; r++) if (store.rows[r]!.kind === 'aspect') aspectRows.push(r);
      // One value pasted on a selected block fills the block.
      const fill = block.length === 1 && block[0]!.length === 1 && store.hasBlock();
      const targets: { aspect: Aspect; bucket: string; value: string }[] = [];
      let rowsLeft = 0;
      let colsLeft = 0;
      if (fill) {
        for (const c of blockCells()) targets.push({ ...c, value: block[0]![0]! });
      } else {
        const width = Math.max(...block.map((r) => r.length));
        const fitCols = Math.min(width, store.columns - left);
        colsLeft = width - fitCols;
        rowsLeft = Math.max(0, block.length - aspectRows.length);
        block.slice(0, aspectRows.length).forEach((values, i) => {
          for (let c = 0; c < fitCols; c++) {
            const cell = quarterCell({ row: aspectRows[i]!, col: left + c });
            if (cell) targets.push({ ...cell, value: (values[c] ?? '').slice(0, MAX_TEXT_LENGTH) });
          }
        });
        if (targets.length) {
          const lastRow = aspectRows[Math.min(block.length, aspectRows.length) - 1]!;
          store.selectBlock({ row: aspectRows[0]!, col: left }, { row: lastRow, col: left + fitCols - 1 });
        }
      }
      const edits = editsOf(targets);
      const leftOut = G.leftOut(rowsLeft, colsLeft, store.timeline.at(-1) ?? '');
      if (!edits.length) {
        say([G.pastedNothingNew, leftOut].filter(Boolean).join(' '));
        return;
      }
      void write(edits, { record: 'new' }).then((r) =>
        say(r.ok ? [G.pasted(edits.length), leftOut].filter(Boolean).join(' ') : G.pasteRefused(messageOf(r.err), conflictingCells(r.err)?.length ?? 0)),
      );
    },
    [canWrite, store, blockCells, quarterCell, editsOf, write, say],
  );

  const onCopy = useCallback(
    (e: ClipboardEvent<HTMLElement>) => {
      if ((e.target as HTMLElement).closest('textarea, input')) return;
      const sel = store.selection();
      const lines: string[][] = [];
      for (let r = sel.top; r <= sel.bottom; r++) {
        const row = store.rows[r]!;
        if (row.kind !== 'aspect') continue;
        const line: string[] = [];
        for (let c = sel.left; c <= sel.right; c++) line.push(shownText(store, row, c));
        lines.push(line);
      }
      if (!lines.length) return;
      e.preventDefault();
      e.clipboardData.setData('text/plain', toTsv(lines));
      say(G.copied(lines.length * (sel.right - sel.left + 1)));
    },
    [store, say],
  );

  const startEditing = useCallback(
    (initial: string | null) => {
      const pos = store.active;
      const cell = quarterCell(pos);
      if (!cell || !canWrite) return false;
      const status = store.status(cell.aspect.id, cell.bucket);
      store.startEditing({ row: pos.row, col: pos.col, initial: initial ?? status?.value ?? storedText(cell.aspect, cell.bucket) });
      return true;
    },
    [store, quarterCell, canWrite],
  );

  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLElement>) => {
      const target = e.target as HTMLElement;
      if (target.closest('.roadmap-cell-editor')) return;
      const cell = cellOf(target);
      // A button inside a cell that holds several (the aspect's handle and title, a category's
      // actions): the keys are the button's; Escape goes back to the cell.
      if (!cell || target.dataset.cell === undefined) {
        if (e.key === 'Escape' && cell) {
          e.preventDefault();
          focusActive();
        }
        return;
      }
      const ctrl = e.ctrlKey || e.metaKey;
      const { row, col } = store.active;
      const current = store.rows[row];
      const handled = () => {
        e.preventDefault();
        e.stopPropagation();
      };
      switch (e.key) {
        case 'ArrowDown':
        case 'ArrowUp': {
          const step = e.key === 'ArrowDown' ? 1 : -1;
          moveTo({ row: ctrl ? (step > 0 ? rowFrom(store.rows.length, -1, true) : rowFrom(-1, 1, true)) : rowFrom(row, step, e.shiftKey), col }, e.shiftKey);
          return handled();
        }
        case 'ArrowRight':
        case 'ArrowLeft': {
          const step = e.key === 'ArrowRight' ? 1 : -1;
          moveTo({ row, col: ctrl ? (step > 0 ? store.columns - 1 : 0) : col + step }, e.shiftKey);
          return handled();
        }
        case 'Home':
          moveTo(ctrl ? { row: rowFrom(-1, 1, false), col: 0 } : { row, col: 0 }, e.shiftKey);
          return handled();
        case 'End':
          moveTo(ctrl ? { row: rowFrom(store.rows.length, -1, false), col: store.columns - 1 } : { row, col: store.columns - 1 }, e.shiftKey);
          return handled();
        case 'PageDown':
        case 'PageUp': {
          const step = e.key === 'PageDown' ? 1 : -1;
          let r = row;
          for (let i = 0; i < PAGE_ROWS; i++) r = rowFrom(r, step, true);
          moveTo({ row: r, col }, e.shiftKey);
          return handled();
        }
        case 'Tab':
          // Tab leaves the grid (one tab stop), except into the buttons of the cell it is on.
          return;
        case 'Escape':
          if (store.anchor) {
            store.moveTo(store.active, false);
            return handled();
          }
          return;
        default:
          break;
      }
      if (ctrl && !e.altKey && (e.key === 'z' || e.key === 'Z' || e.key === 'y')) {
        if (!canWrite) {
          say(G.readOnly);
          return handled();
        }
        void undoOrRedo(e.key === 'y' || e.shiftKey ? 'redo' : 'undo');
        return handled();
      }
      if (ctrl && e.key === 'a') {
        store.selectBlock({ row: rowFrom(-1, 1, true), col: FIRST_QUARTER_COL }, { row: rowFrom(store.rows.length, -1, true), col: store.columns - 1 });
        return handled();
      }
      const quarter = quarterCell(store.active);
      if (e.altKey && (e.key === 'h' || e.key === 'H' || e.code === 'KeyH')) {
        if (quarter) cb.current.onHistory(quarter.aspect, quarter.bucket);
        return handled();
      }
      if (current?.kind === 'category' || col < FIRST_QUARTER_COL) {
        // A cell of buttons: Enter or F2 goes to its first button (Tab then reaches the others).
        if (e.key === 'Enter' || e.key === 'F2') {
          const first = target.querySelector<HTMLElement>('button');
          if (first) {
            first.focus();
            return handled();
          }
        }
        if ((e.key === 'Delete' || e.key === 'Backspace') && store.hasBlock() && canWrite) {
          clearSelection();
          return handled();
        }
        return;
      }
      if (!quarter) return;
      if (e.key === 'Enter' && ctrl) {
        // The spec's Edit Availability, one keystroke away.
        if (canWrite) cb.current.onEditAvailability(quarter.aspect, quarter.bucket);
        return handled();
      }
      if (!canWrite) {
        if (e.key === 'Enter' || e.key === 'F2' || e.key === 'Delete' || e.key === 'Backspace' || (e.key.length === 1 && !ctrl && !e.altKey)) {
          say(G.readOnly);
          return handled();
        }
        return;
      }
      if (e.key === 'Enter' || e.key === 'F2') {
        startEditing(null);
        return handled();
      }
      if (e.key === 'Delete' || e.key === 'Backspace') {
        clearSelection();
        return handled();
      }
      if (e.key.length === 1 && !ctrl && !e.altKey) {
        // Typing starts editing the cell with what was typed.
        startEditing(e.key);
        return handled();
      }
    },
    [store, moveTo, rowFrom, focusActive, canWrite, undoOrRedo, say, quarterCell, startEditing, clearSelection],
  );

  const onFocus = useCallback(
    (e: React.FocusEvent<HTMLElement>) => {
      const target = e.target as HTMLElement;
      if (target.dataset.cell === undefined) return;
      const cell = cellOf(target);
      const row = cell ? store.indexOf(cell.key) : undefined;
      if (!cell || row === undefined) return;
      if (store.active.row !== row || (store.rows[row]!.kind === 'aspect' && store.active.col !== cell.col)) {
        store.moveTo({ row, col: cell.col }, false);
      }
    },
    [store],
  );

  const onMouseDown = useCallback(
    (e: MouseEvent<HTMLElement>) => {
      if (e.button !== 0) return;
      const cell = cellOf(e.target);
      const row = cell ? store.indexOf(cell.key) : undefined;
      if (!cell || row === undefined || store.rows[row]!.kind !== 'aspect') return;
      // The drag handle reorders rows; the editor is text: neither selects a block.
      if ((e.target as HTMLElement).closest('.roadmap-cell-editor, .roadmap-drag-handle')) return;
      const pos = { row, col: cell.col };
      if (e.shiftKey) {
        e.preventDefault();
        store.moveTo(pos, true);
        focusActive();
        return;
      }
      dragging.current = pos;
      const up = () => {
        dragging.current = null;
        window.removeEventListener('mouseup', up);
      };
      window.addEventListener('mouseup', up);
    },
    [store, focusActive],
  );

  const onMouseOver = useCallback(
    (e: MouseEvent<HTMLElement>) => {
      const from = dragging.current;
      if (!from || !(e.buttons & 1)) return;
      const cell = cellOf(e.target);
      const row = cell ? store.indexOf(cell.key) : undefined;
      if (!cell || row === undefined || store.rows[row]!.kind !== 'aspect') return;
      if (row === store.active.row && cell.col === store.active.col) return;
      store.selectBlock(from, { row, col: cell.col });
      focusActive();
    },
    [store, focusActive],
  );

  // One object while nothing it holds changes: the rows' context stays put as the focus moves.
  return useMemo(
    () => ({ store, message, onKeyDown, onFocus, onMouseDown, onMouseOver, onCopy, onPaste, finishEditing, retry, focusActive }),
    [store, message, onKeyDown, onFocus, onMouseDown, onMouseOver, onCopy, onPaste, finishEditing, retry, focusActive],
  );
}
