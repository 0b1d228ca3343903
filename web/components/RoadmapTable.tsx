import './RoadmapTable.css';
import { Button } from '@mantine/core';
import { memo, useCallback, useId, useLayoutEffect, useMemo, useState } from 'react';
import { GridContext, type GridContextValue } from './grid/GridContext';
import { CellHistoryModal, type HistoryTarget } from './grid/CellHistory';
import { useRoadmapGrid } from './grid/useRoadmapGrid';
import type { CatalogGroup, QuickTemplate } from '../api/catalog';
import { CategoryGroup, type RoadmapTableHandlers } from './RoadmapGroup';
import { quarters, useQuarterScroll, type QuarterView } from './useQuarterScroll';
import { groupLayout, groupRange, useRowWindow } from './useRowWindow';

export { REORDER_WITHIN_CATEGORY, type RoadmapTableHandlers } from './RoadmapGroup';

/** The templates of a table that has none (a snapshot's): one array, so the grid's context stays put. */
const NO_TEMPLATES: QuickTemplate[] = [];

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
  const { grid, message } = useRoadmapGrid({
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
  const extras = (
    <>
      <p id={keysId} className="roadmap-visually-hidden">
        {editable
          ? 'Arrow keys move between cells. Type or press Enter to edit a quarter, Control+Enter opens Edit Availability, Alt+H shows its history. Shift+arrows select, Control+C copies, Control+V pastes, Delete clears, Control+Z undoes, Control+Shift+Z redoes. Tab moves to the next quarter, and from a row’s last to the next row’s first.'
          : 'Arrow keys move between cells. Shift+arrows select, Control+C copies, Alt+H shows a quarter’s history.'}
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
  // Above the panel, so what a paste or an undo did is in view however tall the roadmap is.
  const status = (
    <p className="roadmap-grid-status" role="status" data-testid="grid-status">
      {message}
    </p>
  );
  if (timeline.length === 0)
    return (
      <GridContext.Provider value={gridContext}>
        {status}
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
        {status}
        <div className="roadmap-panel-wrap">
          {panel}
          {view.before > 0 ? (
            // The same at the left edge of the quarters, under the Aspect column, for those scrolled past.
            <div
              className="roadmap-more-cue roadmap-more-cue-before"
              aria-hidden="true"
              data-testid="quarters-earlier-cue"
              style={{ left: view.quartersLeft, bottom: view.scrollbarBottom + 1 }}
            >
              {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions */}
              <span className="roadmap-more-cue-label" onClick={quarterScroll.previous}>
                ← {view.before} earlier
              </span>
            </div>
          ) : null}
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
