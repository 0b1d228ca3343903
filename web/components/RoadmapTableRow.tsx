import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, type CSSProperties, type HTMLAttributes, type ReactNode } from 'react';
import type { Aspect } from '../api/catalog';
import { SafeHtml } from './SafeHtml';
import { gapAttributes, windowPieces, windowRowAttributes } from './useRowWindow';

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

/** The cells of one aspect row: cheap plain elements, so hundreds of rows stay fast. */
function RowCells({ aspect, timeline, handlers, editable, handle }: Omit<CellsProps, 'index' | 'ariaRow'>) {
  return (
    <>
      <th scope="row" className="roadmap-aspect-cell">
        <div className="roadmap-aspect">
          {handle ? (
            <button type="button" className="roadmap-drag-handle" aria-label={`Reorder ${aspect.title}`} {...handle}>
              <span aria-hidden="true">⠿</span>
            </button>
          ) : null}
          <span className="roadmap-aspect-text">
            {editable ? (
              <button type="button" className="roadmap-title-button" onClick={() => handlers.onEditAspect(aspect)}>
                {aspect.title}
              </button>
            ) : (
              <span className="roadmap-title">{aspect.title}</span>
            )}
            {aspect.is_public ? null : <PrivateBadge />}
          </span>
        </div>
      </th>
      <td className="roadmap-description-cell">
        <SafeHtml html={aspect.description} />
      </td>
      {timeline.map((bucket) => {
        const value = aspect.availabilities[bucket] ?? '';
        return (
          <td key={bucket} className="roadmap-value-cell">
            {editable ? (
              <button
                type="button"
                className="roadmap-cell-button"
                aria-label={`${aspect.title}, ${bucket}: ${value || '-'}`}
                onClick={() => handlers.onEditAvailability(aspect, bucket)}
              >
                {value || '-'}
              </button>
            ) : (
              <span>{value || '-'}</span>
            )}
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
