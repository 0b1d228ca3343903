import type { Aspect, Category } from '../../api/catalog';

/**
 * The roadmap grid's state outside React (docs/decisions/0126-roadmap-grid.md): the active cell,
 * the selection, the cell being edited and each cell's save state. Each row reads only its own
 * slice (rowView), so moving the focus renders the two rows it leaves and enters, not the table;
 * rows that leave the page and come back read their slice again and show the same focus and
 * selection.
 */

/** A row of the grid: a category's header row or an aspect's row, in display order. */
export type GridRow = { kind: 'category'; key: string; category: Category } | { kind: 'aspect'; key: string; aspect: Aspect };

/** Columns: 0 the aspect, 1 its description, then one per quarter. */
export const FIRST_QUARTER_COL = 2;

export interface CellPos {
  row: number;
  col: number;
}

export type SaveState = 'saving' | 'saved' | 'failed';

/** What a cell shows while its change is being saved, or after it failed. */
export interface CellStatus {
  state: SaveState;
  /** The text typed or pasted: shown in the cell until the catalog reads it back. */
  value: string;
  /** The stored text the change started from. */
  before: string;
  message?: string;
}

export interface Editing {
  row: number;
  col: number;
  /** The editor's text when it opened: what was typed, or the cell's text. */
  initial: string;
}

export const cellKey = (aspectId: string, bucket: string) => `${aspectId}|${bucket}`;

export class GridStore {
  rows: GridRow[] = [];
  columns = FIRST_QUARTER_COL;
  timeline: string[] = [];
  active: CellPos = { row: 0, col: 0 };
  anchor: CellPos | null = null;
  editing: Editing | null = null;
  /** A focus move waiting for its row to render (it was a gap). */
  pendingFocus = false;
  private statuses = new Map<string, CellStatus>();
  private rowIndex = new Map<string, number>();
  private listeners = new Set<() => void>();
  private views = new Map<string, string>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit() {
    this.views.clear();
    for (const listener of this.listeners) listener();
  }

  setRows(rows: GridRow[], timeline: string[]) {
    const first = this.rows.length === 0;
    const activeKey = this.rows[this.active.row]?.key;
    const anchorKey = this.anchor ? this.rows[this.anchor.row]?.key : undefined;
    this.rows = rows;
    this.timeline = timeline;
    this.columns = FIRST_QUARTER_COL + timeline.length;
    this.rowIndex = new Map(rows.map((r, i) => [r.key, i]));
    // The active cell and the selection follow their rows when the rows change (a search, a live update).
    const found = activeKey === undefined ? undefined : this.rowIndex.get(activeKey);
    this.active = { row: found ?? Math.min(this.active.row, Math.max(0, rows.length - 1)), col: Math.min(this.active.col, this.columns - 1) };
    if (this.anchor) {
      const a = anchorKey === undefined ? undefined : this.rowIndex.get(anchorKey);
      this.anchor = a === undefined ? null : { row: a, col: Math.min(this.anchor.col, this.columns - 1) };
    }
    if (this.editing && this.rows[this.editing.row]?.key !== activeKey) this.editing = null;
    // A table seen for the first time starts on its first aspect's first quarter.
    if (first && found === undefined) {
      const aspect = rows.findIndex((r) => r.kind === 'aspect');
      this.active = { row: Math.max(0, aspect), col: timeline.length ? FIRST_QUARTER_COL : 0 };
    }
    this.views.clear();
  }

  indexOf(key: string): number | undefined {
    return this.rowIndex.get(key);
  }

  /** The next row from `from` in `step`'s direction (aspect rows only when `aspectsOnly`); `from` when there is none. */
  rowFrom(from: number, step: number, aspectsOnly: boolean): number {
    let i = from + step;
    while (aspectsOnly && i >= 0 && i < this.rows.length && this.rows[i]!.kind !== 'aspect') i += Math.sign(step);
    return i < 0 || i >= this.rows.length ? from : i;
  }

  /** Aspect and quarter of a cell, when it is a quarter cell of an aspect row. */
  quarterCell(pos: CellPos): { aspect: Aspect; bucket: string } | null {
    const row = this.rows[pos.row];
    if (row?.kind !== 'aspect' || pos.col < FIRST_QUARTER_COL) return null;
    const bucket = this.timeline[pos.col - FIRST_QUARTER_COL];
    return bucket ? { aspect: row.aspect, bucket } : null;
  }

  /** The selected block's quarter cells (or the active cell's), row by row. */
  blockCells(): { aspect: Aspect; bucket: string }[] {
    const sel = this.selection();
    const cells: { aspect: Aspect; bucket: string }[] = [];
    for (let r = sel.top; r <= sel.bottom; r++) {
      for (let c = Math.max(sel.left, FIRST_QUARTER_COL); c <= sel.right; c++) {
        const cell = this.quarterCell({ row: r, col: c });
        if (cell) cells.push(cell);
      }
    }
    return cells;
  }

  /** The selected block: rows and columns, inclusive. */
  selection(): { top: number; bottom: number; left: number; right: number } {
    const a = this.anchor ?? this.active;
    return {
      top: Math.min(a.row, this.active.row),
      bottom: Math.max(a.row, this.active.row),
      left: Math.min(a.col, this.active.col),
      right: Math.max(a.col, this.active.col),
    };
  }

  hasBlock(): boolean {
    return this.anchor !== null && (this.anchor.row !== this.active.row || this.anchor.col !== this.active.col);
  }

  moveTo(pos: CellPos, extend: boolean) {
    const row = Math.max(0, Math.min(this.rows.length - 1, pos.row));
    const col = Math.max(0, Math.min(this.columns - 1, pos.col));
    if (extend) this.anchor ??= { ...this.active };
    else this.anchor = null;
    this.active = { row, col };
    this.emit();
  }

  /** Selects a block from `from` to `to` (click-drag), `to` active. */
  selectBlock(from: CellPos, to: CellPos) {
    this.anchor = { ...from };
    this.active = { ...to };
    this.emit();
  }

  startEditing(editing: Editing | null) {
    this.editing = editing;
    this.emit();
  }

  status(aspectId: string, bucket: string): CellStatus | undefined {
    return this.statuses.get(cellKey(aspectId, bucket));
  }

  setStatus(aspectId: string, bucket: string, status: CellStatus | null) {
    const key = cellKey(aspectId, bucket);
    if (status) this.statuses.set(key, status);
    else this.statuses.delete(key);
    this.emit();
  }

  setStatuses(changes: { aspectId: string; bucket: string; status: CellStatus | null }[]) {
    for (const { aspectId, bucket, status } of changes) {
      const key = cellKey(aspectId, bucket);
      if (status) this.statuses.set(key, status);
      else this.statuses.delete(key);
    }
    this.emit();
  }

  /**
   * What a row shows of the grid, as one string (equal strings: the row does not render again):
   * the active column, the selected columns, the column being edited and its cells' save states.
   */
  rowView = (key: string): string => {
    const cached = this.views.get(key);
    if (cached !== undefined) return cached;
    const i = this.rowIndex.get(key);
    let view = '-1||-1|';
    if (i !== undefined) {
      const active = this.active.row === i ? this.active.col : -1;
      const sel = this.selection();
      const selected = this.hasBlock() && i >= sel.top && i <= sel.bottom ? `${sel.left}-${sel.right}` : '';
      const editing = this.editing?.row === i ? this.editing.col : -1;
      const row = this.rows[i]!;
      let states = '';
      if (row.kind === 'aspect' && this.statuses.size) {
        for (const bucket of this.timeline) {
          const s = this.statuses.get(cellKey(row.aspect.id, bucket));
          if (s) states += `${bucket}:${s.state}:${s.value.length}:${s.value.slice(0, 8)};`;
        }
      }
      view = `${active}|${selected}|${editing}|${states}`;
    }
    this.views.set(key, view);
    return view;
  };
}

/** A row's slice of the grid, read back from rowView. */
export interface RowView {
  activeCol: number;
  selected: [number, number] | null;
  editingCol: number;
}

export function readRowView(view: string): RowView {
  const [active, selected, editing] = view.split('|');
  const sel = selected ? (selected.split('-').map(Number) as [number, number]) : null;
  return { activeCol: Number(active ?? -1), selected: sel, editingCol: Number(editing ?? -1) };
}
