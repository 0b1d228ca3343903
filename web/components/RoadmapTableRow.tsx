import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, type CSSProperties, type HTMLAttributes } from 'react';
import type { Aspect } from '../api/catalog';
import { SafeHtml } from './SafeHtml';
import { windowRowAttributes } from './useRowWindow';

export interface RoadmapRowHandlers {
  onEditAspect: (aspect: Aspect) => void;
  onEditAvailability: (aspect: Aspect, bucket: string) => void;
}

interface RowProps {
  aspect: Aspect;
  /** Position in the table's display order (see useRowWindow). */
  index: number;
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
function RowCells({ aspect, timeline, handlers, editable, handle }: CellsProps) {
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
 * A row far from the viewport, in brief: its title (and Private badge) and empty cells, at the
 * row's last measured height. It turns into a full row as it comes near the viewport.
 */
export const BriefRow = memo(function BriefRow({ aspect, index, columns, height, testId }: { aspect: Aspect; index: number; columns: number; height: number; testId: string }) {
  return (
    <tr className={rowClass(aspect, 'roadmap-row-brief')} data-testid={testId} style={{ height }} {...windowRowAttributes(aspect.id, index, false)}>
      <th scope="row" className="roadmap-aspect-cell">
        <span className="roadmap-title">{aspect.title}</span>
        {aspect.is_public ? null : <PrivateBadge />}
      </th>
      <td className="roadmap-description-cell" />
      {columns > 2 ? <td colSpan={columns - 2} /> : null}
    </tr>
  );
});

/** A read-only row. */
export const RoadmapRow = memo(function RoadmapRow(props: RowProps) {
  return (
    <tr className={rowClass(props.aspect)} data-testid="aspect-row" {...windowRowAttributes(props.aspect.id, props.index, true)}>
      <RowCells {...props} />
    </tr>
  );
});

/**
 * An editable row that can be dragged (pointer) or moved with the keyboard (Space, arrows, Space)
 * by its handle; while `sortable` is false (a search filters the list) it has no handle.
 */
export const SortableRoadmapRow = memo(function SortableRoadmapRow({ sortable, ...props }: RowProps & { sortable: boolean }) {
  const { setNodeRef, setActivatorNodeRef, attributes, listeners, transform, transition, isDragging } = useSortable({ id: props.aspect.id, disabled: !sortable });
  const style: CSSProperties = { transform: CSS.Translate.toString(transform), transition };
  const handle: DragHandleProps | undefined = sortable ? { ...attributes, ...listeners, ref: setActivatorNodeRef } : undefined;
  return (
    <tr
      ref={setNodeRef}
      style={style}
      className={rowClass(props.aspect, isDragging ? 'roadmap-row-dragging' : '')}
      data-testid="aspect-row"
      {...windowRowAttributes(props.aspect.id, props.index, true)}
    >
      <RowCells {...props} handle={handle} />
    </tr>
  );
});
