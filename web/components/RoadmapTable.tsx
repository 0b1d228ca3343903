import './RoadmapTable.css';
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
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { memo, useCallback, useId, useLayoutEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { GridContext, useGridRow, type GridContextValue } from './grid/GridContext';
import { CellHistoryModal, type HistoryTarget } from './grid/CellHistory';
import { useRoadmapGrid } from './grid/useRoadmapGrid';
import type { Aspect, CatalogGroup, Category, QuickTemplate } from '../api/catalog';
import { RoadmapRow, SortableRoadmapRow, windowedRows, type RoadmapRowHandlers } from './RoadmapTableRow';
import { quarters, useQuarterScroll, type QuarterView } from './useQuarterScroll';
import { groupLayout, groupRange, useRowWindow } from './useRowWindow';

export interface RoadmapTableHandlers extends RoadmapRowHandlers {
  onEditCategory: (category: Category) => void;
  onAddAspect: (categoryId: string) => void;
  onReorder: (categoryId: string, aspectIds: string[]) => void;
}

interface Props {
  /** The service whose cells the grid writes; without it the grid only moves and copies. */
  serviceId?: string;
  /** The quick templates the in-place editor offers. */
  templates?: QuickTemplate[];
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
  /** The grid's active aspect, which stays in full too (it holds the one tab stop). */
  activeId: string | null;
  heightOf: (id: string) => number;
}

type RowsProps = Omit<GroupProps, 'editable'>;

/** Whether the group's aspect at position `i` renders in full. */
const isFull = (p: RowsProps, i: number, id: string) => (i >= p.fullFrom && i <= p.fullTo) || id === p.pinnedId || id === p.activeId;

/** The templates of a table that has none (a snapshot's): one array, so the grid's context stays put. */
const NO_TEMPLATES: QuickTemplate[] = [];

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
  const ids = useMemo(() => group.aspects.map((a) => a.id), [group.aspects]);
  const fullList = sortable ? group.aspects.filter(full).map((a) => a.id) : [];
  // The same rows in full give the same array: the sortable rows do not all render again when the
  // focus moves between rows already in full.
  const fullKey = fullList.join(',');
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the list is keyed by its contents
  const fullIds = useMemo(() => fullList, [fullKey]);
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
        notifications.show({
          id: 'reorder-within-category',
          color: 'orange',
          message: REORDER_WITHIN_CATEGORY,
          closeButtonProps: { 'aria-label': 'Close notification' },
        });
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

/**
 * The roadmap: Aspect, Description and one column per quarter, rows grouped under category header
 * rows. Only the rows near the viewport are in the page (useRowWindow), so hundreds of aspects stay
 * fast; aria-rowcount tells assistive technology how many rows the table holds.
 */
export const RoadmapTable = memo(function RoadmapTable({ serviceId, templates, groups, timeline, editable, searching, handlers, emptyText }: Props) {
  const { offsets, keys, ariaRowCount, ariaRows } = useMemo(() => groupLayout(groups), [groups]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(keys);
  const [history, setHistory] = useState<HistoryTarget | null>(null);
  const keysId = useId();
  const titleOf = useCallback((aspectId: string) => groups.flatMap((g) => g.aspects).find((a) => a.id === aspectId)?.title ?? '', [groups]);
  const openHistory = useCallback((aspectId: string, bucket: string) => setHistory({ aspectId, bucket, title: titleOf(aspectId) }), [titleOf]);
  const grid = useRoadmapGrid({
    tableRef,
    groups,
    timeline,
    editable,
    serviceId,
    callbacks: {
      onEditAvailability: handlers.onEditAvailability,
      onEditAspect: handlers.onEditAspect,
      onHistory: (aspect, bucket) => openHistory(aspect.id, bucket),
    },
  });
  const { store } = grid;
  const activeKey = useSyncExternalStore(store.subscribe, () => store.rows[store.active.row]?.key ?? null);
  // A cell moved to while its row was a gap takes the focus once its row is in the page.
  useLayoutEffect(() => {
    if (store.pendingFocus) grid.focusActive();
  });
  const gridContext: GridContextValue = useMemo(() => ({ grid, templates: templates ?? NO_TEMPLATES, onHistory: openHistory }), [grid, templates, openHistory]);
  const quarterScroll = useQuarterScroll(timeline.length);
  const { view } = quarterScroll;
  const panel = (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions -- a focusable scrolling region: its arrow keys scroll the quarters
    <div
      className="roadmap-scroll"
      role="region"
      aria-label="Roadmap"
      aria-describedby={timeline.length ? 'roadmap-quarters-status' : undefined}
      tabIndex={0}
      ref={quarterScroll.panelRef}
      onScroll={quarterScroll.onScroll}
      onKeyDown={quarterScroll.onKeyDown}
    >
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions -- a grid (role set below when it has rows): its cells take the keys */}
      <table
        className="roadmap-table"
        data-testid="roadmap-table"
        role={groups.length ? 'grid' : undefined}
        aria-label="Roadmap"
        aria-multiselectable={groups.length ? true : undefined}
        aria-readonly={groups.length && !editable ? true : undefined}
        aria-describedby={keysId}
        aria-rowcount={groups.length ? ariaRowCount : undefined}
        ref={tableRef}
        onFocus={(e) => {
          onFocus(e);
          grid.onFocus(e);
        }}
        onBlur={onBlur}
        onKeyDown={grid.onKeyDown}
        onMouseDown={grid.onMouseDown}
        onMouseOver={grid.onMouseOver}
        onCopy={grid.onCopy}
        onPaste={grid.onPaste}
      >
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
            const active = activeKey !== null && group.aspects.some((a) => a.id === activeKey);
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
                activeId={active ? activeKey : null}
                heightOf={heightOf}
              />
            );
          })
        )}
      </table>
    </div>
  );
  const extras = (
    <>
      <p id={keysId} className="roadmap-visually-hidden">
        {editable
          ? 'Arrow keys move between cells. Type or press Enter to edit a quarter, Control+Enter opens Edit Availability, Alt+H shows its history. Shift+arrows select, Control+C copies, Control+V pastes, Delete clears, Control+Z undoes.'
          : 'Arrow keys move between cells. Shift+arrows select, Control+C copies, Alt+H shows a quarter’s history.'}
      </p>
      <p className="roadmap-grid-status" role="status" data-testid="grid-status">
        {grid.message}
      </p>
      <CellHistoryModal
        target={history}
        onClose={() => {
          setHistory(null);
          grid.focusActive();
        }}
      />
    </>
  );
  if (timeline.length === 0)
    return (
      <GridContext.Provider value={gridContext}>
        {panel}
        {extras}
      </GridContext.Provider>
    );
  return (
    <GridContext.Provider value={gridContext}>
      <div className="roadmap-frame">
        <div className="roadmap-quarter-bar">
          <Button variant="default" size="xs" onClick={quarterScroll.previous} disabled={view.before === 0 && !view.scrolled}>
            <span aria-hidden="true">←&nbsp;</span>Previous quarter
          </Button>
          <Button variant="default" size="xs" onClick={quarterScroll.next} disabled={view.after === 0}>
            Next quarter<span aria-hidden="true">&nbsp;→</span>
          </Button>
          <span id="roadmap-quarters-status" className="roadmap-quarter-status" role="status" data-testid="quarters-status">
            {quarterStatus(timeline.length, view)}
          </span>
          {view.before + view.after > 0 ? <span className="roadmap-quarter-hint">Arrow keys or Shift + mouse wheel scroll sideways</span> : null}
        </div>
        <div className="roadmap-panel-wrap">
          {panel}
          {view.after > 0 ? (
            // The edge of the panel says at once that more quarters lie to the right; the status above says it to assistive technology.
            <div
              className="roadmap-more-cue"
              aria-hidden="true"
              data-testid="quarters-more-cue"
              style={{ right: view.scrollbarRight + 1, bottom: view.scrollbarBottom + 1 }}
            >
              {/* A pointer shortcut; keyboards scroll with the arrow keys, and the cue is hidden from assistive technology. */}
              {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions */}
              <span className="roadmap-more-cue-label" onClick={quarterScroll.next}>
                {view.after} more →
              </span>
            </div>
          ) : null}
        </div>
        {extras}
      </div>
    </GridContext.Provider>
  );
});

/** What the bar above the roadmap says about the quarters out of view. */
function quarterStatus(total: number, view: QuarterView): string {
  if (view.before === 0 && view.after === 0) return `All ${quarters(total)} in view`;
  const parts = [view.before ? `← ${quarters(view.before, 'earlier')}` : '', view.after ? `${quarters(view.after, 'more')} →` : ''];
  return parts.filter(Boolean).join(' · ');
}
