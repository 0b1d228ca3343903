import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, type CSSProperties, type HTMLAttributes, type ReactNode } from 'react';
import type { Aspect, CatalogGroup } from '../api/catalog';
import { SafeHtml } from './SafeHtml';
import { gapAttributes, windowPieces, windowRowAttributes } from './useRowWindow';
import { CellEditor } from './grid/CellEditor';
import { useGridRow } from './grid/GridContext';
import { FIRST_QUARTER_COL, type CellStatus, type RowView } from './grid/gridStore';
import { GRID_MESSAGES as G } from './grid/messages';

export interface RoadmapRowHandlers {
  onEditAspect: (aspect: Aspect) => void;
  onEditAvailability: (aspect: Aspect, bucket: string) => void;
}

interface RowProps {
  aspect: Aspect;
  /** Position in the table's display order (see useRowWindow). */
  index: number;
  /** The row's aria-rowindex: its position among all the table's rows, those not in the page included. */
  ariaRow: number;
  timeline: string[];
  /** Titles and cells open their editors. */
  editable: boolean;
  handlers: RoadmapRowHandlers;
}

type DragHandleProps = HTMLAttributes<HTMLButtonElement> & { ref?: (element: HTMLElement | null) => void };

interface CellsProps extends RowProps {
  /** The drag handle's listeners and attributes (sortable rows only). */
  handle?: DragHandleProps;
}

function PrivateBadge() {
  return <span className="roadmap-private-badge">Private</span>;
}

/** What a quarter's cell says about its save: nothing, saving, saved, or failed with a retry. */
function SaveMark({ status, onRetry }: { status: CellStatus | undefined; onRetry: () => void }) {
  if (!status) return null;
  if (status.state === 'failed') {
    return (
      <span className="roadmap-cell-state roadmap-cell-failed" role="alert">
        <span>{status.message ?? G.failed}</span>{' '}
        <button type="button" className="roadmap-small-button" tabIndex={-1} onClick={onRetry}>
          Retry
        </button>
      </span>
    );
  }
  return <span className={`roadmap-cell-state roadmap-cell-${status.state}`}>{status.state === 'saving' ? G.saving : G.saved}</span>;
}

const inSelection = (view: RowView, col: number) => view.selected !== null && col >= view.selected[0] && col <= view.selected[1];

/** The cells of one aspect row: cheap plain elements, so hundreds of rows stay fast. */
function RowCells({ aspect, timeline, handlers, editable, handle }: Omit<CellsProps, 'index' | 'ariaRow'>) {
  const { view, context } = useGridRow(aspect.id);
  const grid = context?.grid;
  const tab = (col: number) => (view.activeCol === col ? 0 : -1);
  const cls = (base: string, col: number) => (inSelection(view, col) ? `${base} roadmap-selected` : base);
  return (
    <>
      <th scope="row" className={cls('roadmap-aspect-cell', 0)} data-cell={`${aspect.id}|0`} tabIndex={tab(0)}>
        <div className="roadmap-aspect">
          {handle ? (
            <button type="button" className="roadmap-drag-handle" aria-label={`Reorder ${aspect.title}`} {...handle} tabIndex={tab(0)}>
              <span aria-hidden="true">⠿</span>
            </button>
          ) : null}
          <span className="roadmap-aspect-text">
            {editable ? (
              <button type="button" className="roadmap-title-button" tabIndex={tab(0)} onClick={() => handlers.onEditAspect(aspect)}>
                {aspect.title}
              </button>
            ) : (
              <span className="roadmap-title">{aspect.title}</span>
            )}
            {aspect.is_public ? null : <PrivateBadge />}
          </span>
        </div>
      </th>
      <td className={cls('roadmap-description-cell', 1)} data-cell={`${aspect.id}|1`} tabIndex={tab(1)} aria-selected={inSelection(view, 1) || undefined}>
        <SafeHtml html={aspect.description} />
      </td>
      {timeline.map((bucket, i) => {
        const col = FIRST_QUARTER_COL + i;
        const status = grid?.store.status(aspect.id, bucket);
        const value = status?.value ?? aspect.availabilities[bucket] ?? '';
        const selected = inSelection(view, col);
        const state = status ? ` roadmap-cell-is-${status.state}` : '';
        if (view.editingCol === col && grid?.store.editing && context) {
          return (
            <td key={bucket} className={cls(`roadmap-value-cell roadmap-value-editing${state}`, col)}>
              <CellEditor
                label={`${aspect.title}, ${bucket}`}
                initial={grid.store.editing.initial}
                templates={context.templates}
                onFinish={grid.finishEditing}
                onHistory={() => context.onHistory(aspect.id, bucket)}
              />
            </td>
          );
        }
        return editable ? (
          <td key={bucket} className={cls(`roadmap-value-cell${state}`, col)} aria-selected={selected || undefined}>
            <button
              type="button"
              className="roadmap-cell-button"
              aria-label={`${aspect.title}, ${bucket}: ${value || '-'}`}
              data-cell={`${aspect.id}|${col}`}
              tabIndex={grid ? tab(col) : 0}
              // Shift+click selects a block; a plain click opens Edit Availability (spec).
              onClick={(e) => (e.shiftKey ? undefined : handlers.onEditAvailability(aspect, bucket))}
            >
              {value || '-'}
            </button>
            <SaveMark status={status} onRetry={() => grid?.retry(aspect.id, bucket)} />
          </td>
        ) : (
          <td
            key={bucket}
            className={cls(`roadmap-value-cell${state}`, col)}
            data-cell={`${aspect.id}|${col}`}
            tabIndex={tab(col)}
            aria-selected={selected || undefined}
          >
            <span>{value || '-'}</span>
          </td>
        );
      })}
    </>
  );
}

function rowClass(aspect: Aspect, extra = '') {
  return ['roadmap-row', aspect.is_public ? '' : 'roadmap-row-private', extra].filter(Boolean).join(' ');
}

/**
 * Rows far from the viewport are not in the page: each run of them is one empty row as tall as
 * they are, hidden from assistive technology (the table's aria-rowcount counts them).
 */
export const GapRow = memo(function GapRow({ first, last, columns, height }: { first: number; last: number; columns: number; height: number }) {
  return (
    <tr className="roadmap-gap" aria-hidden="true" style={{ height }} {...gapAttributes(first, last)}>
      <td colSpan={columns} />
    </tr>
  );
});

/** What a category's group of rows in a windowed table (useRowWindow) is told by its table. */
export interface WindowedGroupProps {
  group: CatalogGroup;
  /** Index of the group's first aspect in the table's display order. */
  offset: number;
  /** The aria-rowindex of the group's header row; its aspects' rows follow. */
  ariaRow: number;
  /** The group's aspects rendered in full (indices within the group); the others are gaps. */
  fullFrom: number;
  fullTo: number;
  /** An aspect of this group that stays in full wherever it is (it holds the focus). */
  pinnedId: string | null;
  heightOf: (id: string) => number;
}

/**
 * A group's rows as the table shows them (useRowWindow): those for which `full` holds rendered by
 * `row`, each run of the others one GapRow.
 */
export function windowedRows<A extends { id: string }>(
  aspects: A[],
  opts: { offset: number; columns: number; full: (aspect: A, i: number) => boolean; heightOf: (id: string) => number },
  row: (aspect: A, i: number) => ReactNode,
): ReactNode[] {
  const pieces = windowPieces(
    aspects.length,
    (i) => opts.full(aspects[i]!, i),
    (i) => opts.heightOf(aspects[i]!.id),
  );
  return pieces.map((piece) =>
    piece.full ? (
      row(aspects[piece.index]!, piece.index)
    ) : (
      <GapRow
        key={`gap-${aspects[piece.from]!.id}`}
        first={opts.offset + piece.from}
        last={opts.offset + piece.to}
        columns={opts.columns}
        height={piece.height}
      />
    ),
  );
}

/** A read-only row. */
export const RoadmapRow = memo(function RoadmapRow(props: RowProps) {
  return (
    <tr className={rowClass(props.aspect)} data-testid="aspect-row" aria-rowindex={props.ariaRow} {...windowRowAttributes(props.aspect.id, props.index)}>
      <RowCells {...props} />
    </tr>
  );
});

/**
 * An editable row that can be dragged (pointer) or moved with the keyboard (Space, arrows, Space)
 * by its handle; while `sortable` is false (a search filters the list) it has no handle.
 */
export const SortableRoadmapRow = memo(function SortableRoadmapRow({ sortable, ...props }: RowProps & { sortable: boolean }) {
  const { setNodeRef, setActivatorNodeRef, attributes, listeners, transform, transition, isDragging, over } = useSortable({
    id: props.aspect.id,
    disabled: !sortable,
  });
  // Dragged away from its category's rows: nothing to land on, so the row shows it will not drop.
  const refused = isDragging && over === null;
  const style: CSSProperties = { transform: CSS.Translate.toString(transform), transition };
  const handle: DragHandleProps | undefined = sortable ? { ...attributes, ...listeners, ref: setActivatorNodeRef } : undefined;
  return (
    <tr
      ref={setNodeRef}
      style={style}
      className={rowClass(props.aspect, isDragging ? `roadmap-row-dragging${refused ? ' roadmap-row-refused' : ''}` : '')}
      data-testid="aspect-row"
      data-drop={refused ? 'refused' : undefined}
      aria-rowindex={props.ariaRow}
      {...windowRowAttributes(props.aspect.id, props.index)}
    >
      <RowCells {...props} handle={handle} />
    </tr>
  );
});
