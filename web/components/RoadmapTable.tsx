import './RoadmapTable.css';
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { memo, useCallback, useMemo, useState } from 'react';
import type { Aspect, CatalogGroup, Category } from '../api/catalog';
import { RoadmapRow, SortableRoadmapRow, windowedRows, type RoadmapRowHandlers } from './RoadmapTableRow';
import { groupLayout, groupRange, useRowWindow } from './useRowWindow';

export interface RoadmapTableHandlers extends RoadmapRowHandlers {
  onEditCategory: (category: Category) => void;
  onAddAspect: (categoryId: string) => void;
  onReorder: (categoryId: string, aspectIds: string[]) => void;
}

interface Props {
  groups: CatalogGroup[];
  timeline: string[];
  editable: boolean;
  /** True while a search is applied: an empty result then reads 'No matching aspects found'. */
  searching: boolean;
  handlers: RoadmapTableHandlers;
  /** Shown when the service has no category yet. */
  emptyText: string;
}

interface GroupProps {
  group: CatalogGroup;
  timeline: string[];
  editable: boolean;
  /** Dragging is offered only on the full, unfiltered list of a category. */
  sortable: boolean;
  handlers: RoadmapTableHandlers;
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

type RowsProps = Omit<GroupProps, 'editable'>;

/** Whether the group's aspect at position `i` renders in full. */
const isFull = (p: RowsProps, i: number, id: string) => (i >= p.fullFrom && i <= p.fullTo) || id === p.pinnedId;

const dndAccessibility = { container: typeof document === 'undefined' ? undefined : document.body };

function CategoryHeader({ category, columns, editable, handlers, ariaRow }: { category: Category; columns: number; editable: boolean; handlers: RoadmapTableHandlers; ariaRow: number }) {
  return (
    <tr className="roadmap-category-row" aria-rowindex={ariaRow}>
      <th colSpan={columns} scope="colgroup">
        <div className="roadmap-category">
          <span className="roadmap-category-name">{category.name}</span>
          {editable ? (
            <span className="roadmap-category-actions">
              <button type="button" className="roadmap-small-button" aria-label={`Edit category ${category.name}`} onClick={() => handlers.onEditCategory(category)}>
                Edit
              </button>
              <button type="button" className="roadmap-small-button" aria-label={`Add aspect to ${category.name}`} onClick={() => handlers.onAddAspect(category.id)}>
                + Aspect
              </button>
            </span>
          ) : null}
        </div>
      </th>
    </tr>
  );
}

/**
 * The editable rows of a category, which can be dragged unless a search filters them (the rows stay
 * mounted either way, so a search does not rebuild them). Only rows in full take part: the dragged
 * row stays in full while it moves, and a drop lands at the position of the row it is dropped on.
 */
function SortableRows(props: RowsProps) {
  const { group, timeline, handlers, offset, ariaRow, heightOf, sortable } = props;
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const [dragging, setDragging] = useState<string | null>(null);
  const full = (aspect: Aspect, i: number) => isFull(props, i, aspect.id) || aspect.id === dragging;
  const ids = useMemo(() => group.aspects.map((a) => a.id), [group.aspects]);
  const fullIds = sortable ? group.aspects.filter(full).map((a) => a.id) : [];
  const onDragEnd = useCallback(
    ({ active, over }: DragEndEvent) => {
      setDragging(null);
      if (!over || active.id === over.id) return;
      const from = ids.indexOf(String(active.id));
      const to = ids.indexOf(String(over.id));
      if (from < 0 || to < 0) return;
      handlers.onReorder(group.category.id, arrayMove(ids, from, to));
    },
    [ids, group.category.id, handlers],
  );
  const rows = windowedRows(group.aspects, { offset, columns: timeline.length + 2, full, heightOf }, (aspect, i) => (
    <SortableRoadmapRow key={aspect.id} aspect={aspect} index={offset + i} ariaRow={ariaRow + 1 + i} timeline={timeline} editable sortable={sortable} handlers={handlers} />
  ));
  // A group far from the viewport is one gap: nothing to drag, so no drag context to set up (a row
  // being dragged stays in full, so its group keeps its context).
  if (!group.aspects.some(full)) return rows;
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragStart={({ active }) => setDragging(String(active.id))}
      onDragCancel={() => setDragging(null)}
      onDragEnd={onDragEnd}
      accessibility={dndAccessibility}
    >
      <SortableContext items={fullIds} strategy={verticalListSortingStrategy}>
        {rows}
      </SortableContext>
    </DndContext>
  );
}

const CategoryGroup = memo(function CategoryGroup(props: GroupProps) {
  const { group, timeline, editable, handlers, offset, ariaRow, heightOf } = props;
  const columns = timeline.length + 2;
  return (
    <tbody className="roadmap-group">
      <CategoryHeader category={group.category} columns={columns} editable={editable} handlers={handlers} ariaRow={ariaRow} />
      {group.aspects.length === 0 ? (
        <tr aria-rowindex={ariaRow + 1}>
          <td colSpan={columns} className="roadmap-empty">
            No aspects in this category
          </td>
        </tr>
      ) : editable ? (
        <SortableRows {...props} />
      ) : (
        windowedRows(group.aspects, { offset, columns, full: (aspect: Aspect, i) => isFull(props, i, aspect.id), heightOf }, (aspect, i) => (
          <RoadmapRow key={aspect.id} aspect={aspect} index={offset + i} ariaRow={ariaRow + 1 + i} timeline={timeline} editable={editable} handlers={handlers} />
        ))
      )}
    </tbody>
  );
});

/**
 * The roadmap: Aspect, Description and one column per quarter, rows grouped under category header
 * rows. Only the rows near the viewport are in the page (useRowWindow), so hundreds of aspects stay
 * fast; aria-rowcount tells assistive technology how many rows the table holds.
 */
export const RoadmapTable = memo(function RoadmapTable({ groups, timeline, editable, searching, handlers, emptyText }: Props) {
  const { offsets, keys, ariaRowCount, ariaRows } = useMemo(() => groupLayout(groups), [groups]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(keys);
  return (
    <div className="roadmap-scroll" role="region" aria-label="Roadmap" tabIndex={0}>
      <table className="roadmap-table" data-testid="roadmap-table" aria-rowcount={groups.length ? ariaRowCount : undefined} ref={tableRef} onFocus={onFocus} onBlur={onBlur}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" className="roadmap-aspect-col">
              Aspect
            </th>
            <th scope="col" className="roadmap-description-col">
              Description
            </th>
            {timeline.map((bucket) => (
              <th scope="col" key={bucket} className="roadmap-bucket-col">
                {bucket}
              </th>
            ))}
          </tr>
        </thead>
        {groups.length === 0 ? (
          <tbody>
            <tr>
              <td colSpan={timeline.length + 2} className="roadmap-empty">
                {searching ? 'No matching aspects found' : emptyText}
              </td>
            </tr>
          </tbody>
        ) : (
          groups.map((group, g) => {
            const offset = offsets[g]!;
            const [fullFrom, fullTo] = groupRange(range, offset, group.aspects.length);
            const pinned = focusedKey !== null && group.aspects.some((a) => a.id === focusedKey);
            return (
              <CategoryGroup
                key={group.category.id}
                group={group}
                timeline={timeline}
                editable={editable}
                sortable={!searching}
                handlers={handlers}
                offset={offset}
                ariaRow={ariaRows[g]!}
                fullFrom={fullFrom}
                fullTo={fullTo}
                pinnedId={pinned ? focusedKey : null}
                heightOf={heightOf}
              />
            );
          })
        )}
      </table>
    </div>
  );
});
