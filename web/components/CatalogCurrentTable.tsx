import './RoadmapTable.css';
import { memo, useMemo } from 'react';
import type { Aspect, CatalogGroup } from '../api/catalog';
import { windowedRows, type WindowedGroupProps } from './RoadmapTableRow';
import { SafeHtml } from './SafeHtml';
import { groupLayout, groupRange, useRowWindow, windowRowAttributes } from './useRowWindow';

interface Props {
  groups: CatalogGroup[];
  /** The quarter shown: the one chosen, else this calendar quarter if the timeline has it, else its first entry. */
  bucket: string | undefined;
  searching: boolean;
  emptyText: string;
}

const CurrentRow = memo(function CurrentRow({
  aspect,
  index,
  ariaRow,
  bucket,
}: {
  aspect: Aspect;
  index: number;
  ariaRow: number;
  bucket: string | undefined;
}) {
  const value = bucket ? aspect.availabilities[bucket] : undefined;
  return (
    <tr
      className={aspect.is_public ? 'roadmap-row' : 'roadmap-row roadmap-row-private'}
      data-testid="current-row"
      aria-rowindex={ariaRow}
      {...windowRowAttributes(aspect.id, index)}
    >
      <th scope="row" className="roadmap-aspect-cell">
        <div className="roadmap-aspect">
          <span className="roadmap-title">{aspect.title}</span>
          {aspect.is_public ? null : <span className="roadmap-private-badge">Private</span>}
        </div>
        {/* The availability is what this view is for: it stands out above everything else in the row. */}
        {value ? (
          <div className="current-availability">
            <span className="current-availability-label">Availability: </span>
            <span className="current-availability-value">{value}</span>
          </div>
        ) : (
          <div className="current-availability current-availability-none">Not specified</div>
        )}
      </th>
      <td className="roadmap-description-cell">
        <SafeHtml html={aspect.description} />
      </td>
    </tr>
  );
});

interface GroupProps extends WindowedGroupProps {
  bucket: string | undefined;
}

const CurrentGroup = memo(function CurrentGroup({ group, bucket, offset, ariaRow, fullFrom, fullTo, pinnedId, heightOf }: GroupProps) {
  const full = (aspect: Aspect, i: number) => (i >= fullFrom && i <= fullTo) || aspect.id === pinnedId;
  return (
    <tbody>
      <tr className="roadmap-category-row" aria-rowindex={ariaRow}>
        <th colSpan={2} scope="colgroup">
          <span className="roadmap-category-name">{group.category.name}</span>
        </th>
      </tr>
      {group.aspects.length === 0 ? (
        <tr aria-rowindex={ariaRow + 1}>
          <td colSpan={2} className="roadmap-empty">
            No aspects in this category
          </td>
        </tr>
      ) : (
        windowedRows(group.aspects, { offset, columns: 2, full, heightOf }, (aspect, i) => (
          <CurrentRow key={aspect.id} aspect={aspect} index={offset + i} ariaRow={ariaRow + 1 + i} bucket={bucket} />
        ))
      )}
    </tbody>
  );
});

/**
 * The current view: Aspect and Description grouped by category, with each aspect's availability
 * in the quarter shown. Only the rows near the viewport are in the page (useRowWindow).
 */
export const CatalogCurrentTable = memo(function CatalogCurrentTable({ groups, bucket, searching, emptyText }: Props) {
  const { offsets, keys, ariaRowCount, ariaRows } = useMemo(() => groupLayout(groups), [groups]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(keys);
  return (
    <div className="roadmap-scroll" role="region" aria-label="Current availability" tabIndex={0}>
      <table
        className="roadmap-table current-table"
        data-testid="current-table"
        aria-rowcount={groups.length ? ariaRowCount : undefined}
        ref={tableRef}
        onFocus={onFocus}
        onBlur={onBlur}
      >
        {bucket ? <caption className="current-caption">Availability for {bucket}</caption> : null}
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" className="roadmap-aspect-col">
              Aspect
            </th>
            <th scope="col" className="roadmap-description-col">
              Description
            </th>
          </tr>
        </thead>
        {groups.length === 0 ? (
          <tbody>
            <tr>
              <td colSpan={2} className="roadmap-empty">
                {searching ? 'No matching aspects found' : emptyText}
              </td>
            </tr>
          </tbody>
        ) : (
          groups.map((group, g) => {
            const [fullFrom, fullTo] = groupRange(range, offsets[g]!, group.aspects.length);
            const pinned = focusedKey !== null && group.aspects.some((a) => a.id === focusedKey);
            return (
              <CurrentGroup
                key={group.category.id}
                group={group}
                bucket={bucket}
                offset={offsets[g]!}
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
