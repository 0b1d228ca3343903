import { Table } from '@mantine/core';
import { memo, useEffect, useMemo, type ReactNode } from 'react';
import { GapRow } from './RoadmapTableRow';
import { useRowWindow, windowPieces, windowRowAttributes } from './useRowWindow';
import './RoadmapTable.css';

/** The next page is asked for when the rows in the page come this close to the last one loaded. */
const NEAR_END_ROWS = 30;

interface Props<T> {
  /** The panel's accessible name. */
  label: string;
  headings: string[];
  rows: T[];
  rowKey: (row: T) => string;
  /** The cells of one row; a stable function, so that rows already in the page are not rendered again. */
  cells: (row: T) => ReactNode;
  /** False while the server has more rows than those loaded. */
  complete: boolean;
  onNearEnd: () => void;
  minWidth?: number;
}

interface RowProps<T> {
  rowKey: string;
  index: number;
  row: T;
  cells: (row: T) => ReactNode;
}

/** A row is rendered again only when its data, its place or the cells' function changes. */
const Row = memo(function Row<T>({ rowKey, index, row, cells }: RowProps<T>) {
  return (
    <Table.Tr aria-rowindex={index + 2} {...windowRowAttributes(rowKey, index)}>
      {cells(row)}
    </Table.Tr>
  );
}) as <T>(props: RowProps<T>) => ReactNode;

/**
 * A list loaded page by page from the server, in a scroll panel whose rows are windowed as the
 * catalog's are (docs/decisions/0106-table-scroll-panel.md, 0108-row-window-gaps.md): rows near the
 * viewport are in the page, the others gaps of their height. Scrolling or tabbing towards the last
 * row loaded asks for the next page (docs/decisions/0114-paged-lists.md).
 */
export function PagedTable<T>({ label, headings, rows, rowKey, cells, complete, onNearEnd, minWidth = 640 }: Props<T>) {
  const keys = useMemo(() => rows.map(rowKey), [rows, rowKey]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(keys, { fresh: true });

  useEffect(() => {
    if (!complete && range.end >= rows.length - NEAR_END_ROWS) onNearEnd();
  }, [complete, range.end, rows.length, onNearEnd]);

  const focused = focusedKey === null ? -1 : keys.indexOf(focusedKey);
  const pieces = windowPieces(
    rows.length,
    (i) => (i >= range.start && i <= range.end) || i === focused,
    (i) => heightOf(keys[i]!),
  );

  return (
    <div className="roadmap-scroll" role="region" aria-label={label} tabIndex={0}>
      <Table
        striped
        highlightOnHover
        stickyHeader
        miw={minWidth}
        ref={tableRef}
        onFocus={onFocus}
        onBlur={onBlur}
        // Unknown (-1) while more rows are still on the server.
        aria-rowcount={complete ? rows.length + 1 : -1}
      >
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>
            {headings.map((h) => (
              <Table.Th key={h}>{h}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {pieces.map((piece) =>
            piece.full ? (
              <Row key={keys[piece.index]} rowKey={keys[piece.index]!} index={piece.index} row={rows[piece.index]!} cells={cells} />
            ) : (
              <GapRow key={`gap-${keys[piece.from]}`} first={piece.from} last={piece.to} columns={headings.length} height={piece.height} />
            ),
          )}
        </Table.Tbody>
      </Table>
    </div>
  );
}
