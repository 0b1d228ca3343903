/**
 * A category of the roadmap (web/components/RoadmapTable.tsx): its header row and its aspects'
 * rows, those far from the viewport as gaps (useRowWindow), the rows draggable within the category
 * while no search filters them.
 */
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
} from '@dnd-kit/core';
import { notifyOne } from '../lib/notify';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { memo, useCallback, useContext, useMemo, useState, useSyncExternalStore } from 'react';
import type { Aspect, CatalogGroup, Category } from '../api/catalog';
import { GridContext, useGridRow } from './grid/GridContext';
import { RoadmapRow, SortableRoadmapRow, windowedRows, type RoadmapRowHandlers, type WindowedGroupProps } from './RoadmapTableRow';

export interface RoadmapTableHandlers extends RoadmapRowHandlers {
  onEditCategory: (category: Category) => void;
  onAddAspect: (categoryId: string) => void;
  onReorder: (categoryId: string, aspectIds: string[]) => void;
}

interface GroupProps extends WindowedGroupProps {
  timeline: string[];
  editable: boolean;
  /** Dragging is offered only on the full, unfiltered list of a category. */
  sortable: boolean;
  handlers: RoadmapTableHandlers;
}

type RowsProps = Omit<GroupProps, 'editable'> & {
  /** The grid's active aspect when it is outside the rows in full: it stays in full too (it holds the one tab stop). */
  activeId: string | null;
};

const NO_ITEMS: string[] = [];

/** Whether the group's aspect at position `i` renders in full. */
const isFull = (p: RowsProps, i: number, id: string) => (i >= p.fullFrom && i <= p.fullTo) || id === p.pinnedId || id === p.activeId;

const liveRegionContainer = typeof document === 'undefined' ? undefined : document.body;

/** Said (and shown) when a row is dragged out of its category: it cannot land there. */
export const REORDER_WITHIN_CATEGORY = 'An aspect can only be reordered within its category. To move it to another category, use Edit Aspect.';

/**
 * The rows of a category are its only drop targets. While the pointer is above or below them (over
 * another category), nothing collides, so the drop is refused and the row snaps back; closest
 * centre alone would pick this category's first or last row and move the aspect there silently.
 */
const withinCategory: CollisionDetection = (args) => {
  const { pointerCoordinates, droppableRects } = args;
  if (pointerCoordinates) {
    let top = Infinity;
    let bottom = -Infinity;
    for (const rect of droppableRects.values()) {
      top = Math.min(top, rect.top);
      bottom = Math.max(bottom, rect.bottom);
    }
    if (pointerCoordinates.y < top || pointerCoordinates.y > bottom) return [];
  }
  return closestCenter(args);
};

/** Announcements naming aspects by title (dnd-kit's defaults read out ids). */
function announcementsFor(titleOf: (id: string | number) => string, positionOf: (id: string | number) => number, count: number): Announcements {
  const at = (id: string | number) => `position ${positionOf(id) + 1} of ${count}`;
  return {
    onDragStart: ({ active }) => `Picked up ${titleOf(active.id)}, ${at(active.id)}.`,
    onDragOver: ({ active, over }) =>
      over ? `${titleOf(active.id)} is over ${at(over.id)}.` : `${titleOf(active.id)} cannot be dropped here. ${REORDER_WITHIN_CATEGORY}`,
    onDragEnd: ({ active, over }) =>
      over ? `${titleOf(active.id)} was dropped at ${at(over.id)}.` : `${titleOf(active.id)} was not moved. ${REORDER_WITHIN_CATEGORY}`,
    onDragCancel: ({ active }) => `Reordering cancelled. ${titleOf(active.id)} was not moved.`,
  };
}

function CategoryHeader({
  category,
  columns,
  editable,
  handlers,
  ariaRow,
}: {
  category: Category;
  columns: number;
  editable: boolean;
  handlers: RoadmapTableHandlers;
  ariaRow: number;
}) {
  const key = `category:${category.id}`;
  const { view } = useGridRow(key);
  const tab = view.activeCol >= 0 ? 0 : -1;
  return (
    <tr className="roadmap-category-row" aria-rowindex={ariaRow}>
      <th colSpan={columns} scope="colgroup" data-cell={`${key}|0`} tabIndex={tab}>
        <div className="roadmap-category">
          <span className="roadmap-category-name">{category.name}</span>
          {editable ? (
            <span className="roadmap-category-actions">
              <button
                type="button"
                className="roadmap-small-button"
                tabIndex={tab}
                aria-label={`Edit category ${category.name}`}
                onClick={() => handlers.onEditCategory(category)}
              >
                Edit
              </button>
              <button
                type="button"
                className="roadmap-small-button"
                tabIndex={tab}
                aria-label={`Add aspect to ${category.name}`}
                onClick={() => handlers.onAddAspect(category.id)}
              >
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
  // Every aspect of the category is an item, in full or not: the items change only when the
  // aspects do, so the row window moving does not render every sortable row again (each reads the
  // items). Only rows in full are mounted, so only they are measured and can be dropped on.
  const ids = useMemo(() => group.aspects.map((a) => a.id), [group.aspects]);
  const items = sortable ? ids : NO_ITEMS;
  const accessibility = useMemo(() => {
    const titles = new Map(group.aspects.map((a) => [a.id, a.title]));
    const announcements = announcementsFor(
      (id) => titles.get(String(id)) ?? 'The aspect',
      (id) => ids.indexOf(String(id)),
      ids.length,
    );
    return { container: liveRegionContainer, announcements };
  }, [group.aspects, ids]);
  const onDragEnd = useCallback(
    ({ active, over }: DragEndEvent) => {
      setDragging(null);
      if (!over) {
        // Dropped outside its category (see withinCategory): the row snaps back; say why, visibly too.
        notifyOne({ id: 'reorder-within-category', color: 'orange', message: REORDER_WITHIN_CATEGORY });
        return;
      }
      if (active.id === over.id) return;
      const from = ids.indexOf(String(active.id));
      const to = ids.indexOf(String(over.id));
      if (from < 0 || to < 0) return;
      handlers.onReorder(group.category.id, arrayMove(ids, from, to));
    },
    [ids, group.category.id, handlers],
  );
  const rows = windowedRows(group.aspects, { offset, columns: timeline.length + 2, full, heightOf }, (aspect, i) => (
    <SortableRoadmapRow
      key={aspect.id}
      aspect={aspect}
      index={offset + i}
      ariaRow={ariaRow + 1 + i}
      timeline={timeline}
      editable
      sortable={sortable}
      handlers={handlers}
    />
  ));
  // A group far from the viewport is one gap: nothing to drag, so no drag context to set up (a row
  // being dragged stays in full, so its group keeps its context).
  if (!group.aspects.some(full)) return rows;
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={withinCategory}
      onDragStart={({ active }) => setDragging(String(active.id))}
      onDragCancel={() => setDragging(null)}
      onDragEnd={onDragEnd}
      accessibility={accessibility}
    >
      <SortableContext items={items} strategy={verticalListSortingStrategy}>
        {rows}
      </SortableContext>
    </DndContext>
  );
}

/**
 * The grid's active aspect when it is one of this group's and outside its rows in full, else null:
 * the group renders again only when the active cell moves into or out of its gaps, not on every move.
 */
function useActiveInGap(group: CatalogGroup, fullFrom: number, fullTo: number): string | null {
  const store = useContext(GridContext)?.grid.store;
  const inGap = () => {
    if (!store) return null;
    const header = store.indexOf(`category:${group.category.id}`);
    const i = header === undefined ? -1 : store.active.row - header - 1;
    const aspect = group.aspects[i];
    if (!aspect || store.rows[store.active.row]?.key !== aspect.id) return null;
    return i >= fullFrom && i <= fullTo ? null : aspect.id;
  };
  return useSyncExternalStore(store ? store.subscribe : noSubscription, inGap);
}

const noSubscription = () => () => {};

export const CategoryGroup = memo(function CategoryGroup(groupProps: GroupProps) {
  const activeId = useActiveInGap(groupProps.group, groupProps.fullFrom, groupProps.fullTo);
  const props: RowsProps = { ...groupProps, activeId };
  const { group, timeline, editable, handlers, offset, ariaRow, heightOf } = groupProps;
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
          <RoadmapRow
            key={aspect.id}
            aspect={aspect}
            index={offset + i}
            ariaRow={ariaRow + 1 + i}
            timeline={timeline}
            editable={editable}
            handlers={handlers}
          />
        ))
      )}
    </tbody>
  );
});
