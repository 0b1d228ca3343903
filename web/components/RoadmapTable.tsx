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
import { memo, useCallback, useMemo } from 'react';
import type { Aspect, CatalogGroup, Category } from '../api/catalog';
import { RoadmapRow, SortableRoadmapRow, type RoadmapRowHandlers } from './RoadmapTableRow';

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
}

const dndAccessibility = { container: typeof document === 'undefined' ? undefined : document.body };

function CategoryHeader({ category, columns, editable, handlers }: { category: Category; columns: number; editable: boolean; handlers: RoadmapTableHandlers }) {
  return (
    <tr className="roadmap-category-row">
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

function SortableRows({ group, timeline, handlers }: Omit<GroupProps, 'editable' | 'sortable'>) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const ids = useMemo(() => group.aspects.map((a) => a.id), [group.aspects]);
  const onDragEnd = useCallback(
    ({ active, over }: DragEndEvent) => {
      if (!over || active.id === over.id) return;
      const from = ids.indexOf(String(active.id));
      const to = ids.indexOf(String(over.id));
      if (from < 0 || to < 0) return;
      handlers.onReorder(group.category.id, arrayMove(ids, from, to));
    },
    [ids, group.category.id, handlers],
  );
  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd} accessibility={dndAccessibility}>
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        {group.aspects.map((aspect) => (
          <SortableRoadmapRow key={aspect.id} aspect={aspect} timeline={timeline} editable handlers={handlers} />
        ))}
      </SortableContext>
    </DndContext>
  );
}

const CategoryGroup = memo(function CategoryGroup({ group, timeline, editable, sortable, handlers }: GroupProps) {
  const columns = timeline.length + 2;
  return (
    <tbody className="roadmap-group">
      <CategoryHeader category={group.category} columns={columns} editable={editable} handlers={handlers} />
      {group.aspects.length === 0 ? (
        <tr>
          <td colSpan={columns} className="roadmap-empty">
            No aspects in this category
          </td>
        </tr>
      ) : editable && sortable ? (
        <SortableRows group={group} timeline={timeline} handlers={handlers} />
      ) : (
        group.aspects.map((aspect: Aspect) => <RoadmapRow key={aspect.id} aspect={aspect} timeline={timeline} editable={editable} handlers={handlers} />)
      )}
    </tbody>
  );
});

/** The roadmap: Aspect, Description and one column per quarter, rows grouped under category header rows. */
export function RoadmapTable({ groups, timeline, editable, searching, handlers, emptyText }: Props) {
  return (
    <div className="roadmap-scroll" role="region" aria-label="Roadmap" tabIndex={0}>
      <table className="roadmap-table" data-testid="roadmap-table">
        <thead>
          <tr>
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
          groups.map((group) => (
            <CategoryGroup key={group.category.id} group={group} timeline={timeline} editable={editable} sortable={!searching} handlers={handlers} />
          ))
        )}
      </table>
    </div>
  );
}
