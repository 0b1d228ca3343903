import './RoadmapTable.css';
import { memo, useMemo } from 'react';
import type { Aspect, CatalogGroup } from '../api/catalog';
import { BriefRow } from './RoadmapTableRow';
import { SafeHtml } from './SafeHtml';
import { groupOffsets, groupRange, useRowWindow, windowRowAttributes } from './useRowWindow';

interface Props {
  groups: CatalogGroup[];
  /** The quarter shown: this calendar quarter if the timeline has it, else its first entry. */
  bucket: string | undefined;
  searching: boolean;
  emptyText: string;
}

const CurrentRow = memo(function CurrentRow({ aspect, index, bucket }: { aspect: Aspect; index: number; bucket: string | undefined }) {
  const value = bucket ? aspect.availabilities[bucket] : undefined;
  return (
    <tr className={aspect.is_public ? 'roadmap-row' : 'roadmap-row roadmap-row-private'} data-testid="current-row" {...windowRowAttributes(aspect.id, index, true)}>
      <th scope="row" className="roadmap-aspect-cell">
        <div className="roadmap-aspect">
          <span className="roadmap-title">{aspect.title}</span>
          {aspect.is_public ? null : <span className="roadmap-private-badge">Private</span>}
        </div>
        <div className="current-availability">{value ? `Availability: ${value}` : 'Not specified'}</div>
      </th>
      <td className="roadmap-description-cell">
        <SafeHtml html={aspect.description} />
      </td>
    </tr>
  );
});

interface GroupProps {
  group: CatalogGroup;
  bucket: string | undefined;
  /** Index of the group's first aspect in display order, and its aspects in full (see useRowWindow). */
  offset: number;
  fullFrom: number;
  fullTo: number;
  pinnedId: string | null;
  heightOf: (id: string) => number;
}

const CurrentGroup = memo(function CurrentGroup({ group, bucket, offset, fullFrom, fullTo, pinnedId, heightOf }: GroupProps) {
  return (
    <tbody>
      <tr className="roadmap-category-row">
        <th colSpan={2} scope="colgroup">
          <span className="roadmap-category-name">{group.category.name}</span>
        </th>
      </tr>
      {group.aspects.length === 0 ? (
        <tr>
          <td colSpan={2} className="roadmap-empty">
            No aspects in this category
          </td>
        </tr>
      ) : (
        group.aspects.map((aspect, i) =>
          (i >= fullFrom && i <= fullTo) || aspect.id === pinnedId ? (
            <CurrentRow key={aspect.id} aspect={aspect} index={offset + i} bucket={bucket} />
          ) : (
            <BriefRow key={aspect.id} aspect={aspect} index={offset + i} columns={2} height={heightOf(aspect.id)} testId="current-row" />
          ),
        )
      )}
    </tbody>
  );
});

/**
 * The current view: Aspect and Description grouped by category, with each aspect's availability
 * this quarter. Rows far from the viewport render in brief (useRowWindow).
 */
export const CatalogCurrentTable = memo(function CatalogCurrentTable({ groups, bucket, searching, emptyText }: Props) {
  const { offsets, rows } = useMemo(() => groupOffsets(groups), [groups]);
  const { tableRef, range, focusedKey, onFocus, onBlur, heightOf } = useRowWindow(rows);
  return (
    <div className="roadmap-scroll" role="region" aria-label="Current availability" tabIndex={0}>
      <table className="roadmap-table" data-testid="current-table" ref={tableRef} onFocus={onFocus} onBlur={onBlur}>
        {bucket ? <caption className="current-caption">Availability for {bucket}</caption> : null}
        <thead>
          <tr>
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
