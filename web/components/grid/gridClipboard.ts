import type { ClipboardEvent } from 'react';
import { htmlToText } from '../../../common/richText';
import { MAX_TEXT_LENGTH } from '../../../common/limits';
import { messageOf } from '../../api/client';
import { conflictingCells, type Aspect } from '../../api/catalog';
import type { GridEnv } from './gridEnv';
import { FIRST_QUARTER_COL, type GridRow } from './gridStore';
import type { GridWrites } from './gridWrites';
import { GRID_MESSAGES as G } from './messages';
import { parseTsv, toTsv } from './tsv';

/** The cell's text as the grid shows it: the aspect's title, its description as text, or a quarter's text. */
function cellText(writes: GridWrites, row: GridRow, col: number, timeline: string[]): string {
  if (row.kind !== 'aspect') return col === 0 ? row.category.name : '';
  if (col === 0) return row.aspect.title;
  if (col === 1) return htmlToText(row.aspect.description);
  return writes.shownText(row.aspect, timeline[col - FIRST_QUARTER_COL]!);
}

const inTextField = (e: ClipboardEvent<HTMLElement>) => (e.target as HTMLElement).closest('textarea, input') !== null;

/** Ctrl+C: the selected block (its aspect rows) as tab-separated text, as spreadsheets read it. */
export function copyBlock(env: GridEnv, writes: GridWrites, e: ClipboardEvent<HTMLElement>): void {
  if (inTextField(e)) return;
  const { store } = env;
  const sel = store.selection();
  const lines: string[][] = [];
  for (let r = sel.top; r <= sel.bottom; r++) {
    const row = store.rows[r]!;
    if (row.kind !== 'aspect') continue;
    const line: string[] = [];
    for (let c = sel.left; c <= sel.right; c++) line.push(cellText(writes, row, c, store.timeline));
    lines.push(line);
  }
  if (!lines.length) return;
  e.preventDefault();
  e.clipboardData.setData('text/plain', toTsv(lines));
  env.say(G.copied(lines.length * (sel.right - sel.left + 1)));
}

/**
 * Ctrl+V: tab-separated text pasted from the selection's top-left quarter (a non-quarter column
 * starts at the first quarter), over the aspect rows only, cut at the last quarter and the last
 * aspect; one value pasted on a selected block fills it. Saved as one step, all or nothing.
 */
export function pasteBlock(env: GridEnv, writes: GridWrites, e: ClipboardEvent<HTMLElement>): void {
  if (inTextField(e)) return;
  e.preventDefault();
  const { store, say } = env;
  if (!env.options.canWrite) {
    say(G.readOnly);
    return;
  }
  const block = parseTsv(e.clipboardData.getData('text/plain'));
  if (!block.length) return;
  const sel = store.selection();
  const left = Math.max(sel.left, FIRST_QUARTER_COL);
  // The aspect rows from the block's top down (category rows are passed over).
  const aspectRows: number[] = [];
  for (let r = sel.top; r < store.rows.length; r++) if (store.rows[r]!.kind === 'aspect') aspectRows.push(r);
  // One value pasted on a selected block fills the block.
  const fill = block.length === 1 && block[0]!.length === 1 && store.hasBlock();
  const targets: { aspect: Aspect; bucket: string; value: string }[] = [];
  let rowsLeft = 0;
  let colsLeft = 0;
  if (fill) {
    for (const c of store.blockCells()) targets.push({ ...c, value: block[0]![0]! });
  } else {
    const width = Math.max(...block.map((r) => r.length));
    const fitCols = Math.min(width, store.columns - left);
    colsLeft = width - fitCols;
    rowsLeft = Math.max(0, block.length - aspectRows.length);
    block.slice(0, aspectRows.length).forEach((values, i) => {
      for (let c = 0; c < fitCols; c++) {
        const cell = store.quarterCell({ row: aspectRows[i]!, col: left + c });
        if (cell) targets.push({ ...cell, value: (values[c] ?? '').slice(0, MAX_TEXT_LENGTH) });
      }
    });
    if (targets.length) {
      const lastRow = aspectRows[Math.min(block.length, aspectRows.length) - 1]!;
      store.selectBlock({ row: aspectRows[0]!, col: left }, { row: lastRow, col: left + fitCols - 1 });
    }
  }
  const edits = writes.editsOf(targets);
  const leftOut = G.leftOut(rowsLeft, colsLeft, store.timeline.at(-1) ?? '');
  if (!edits.length) {
    say([G.pastedNothingNew, leftOut].filter(Boolean).join(' '));
    return;
  }
  void writes
    .write(edits, 'new')
    .then((r) =>
      say(
        r.ok
          ? [G.pasted(targets.length, targets.length - edits.length), leftOut].filter(Boolean).join(' ')
          : G.pasteRefused(messageOf(r.err), conflictingCells(r.err)?.length ?? 0),
      ),
    );
}
