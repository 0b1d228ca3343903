import './RoadmapTable.css';
import { memo } from 'react';
import type { Aspect, CatalogGroup } from '../api/catalog';
import { SafeHtml } from './SafeHtml';

interface Props {
  groups: CatalogGroup[];
  /** The quarter shown: this calendar quarter if the timeline has it, else its first entry. */
  bucket: string | undefined;
  searching: boolean;
  emptyText: string;
}

const CurrentRow = memo(function CurrentRow({ aspect, bucket }: { aspect: Aspect; bucket: string | undefined }) {
  const value = bucket ? aspect.availabilities[bucket] : undefined;
  return (
    <tr className={aspect.is_public ? 'roadmap-row' : 'roadmap-row roadmap-row-private'} data-testid="current-row">
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

/** The current view: Aspect and Description grouped by category, with each aspect's availability this quarter. */
export function CatalogCurrentTable({ groups, bucket, searching, emptyText }: Props) {
  return (
    <div className="roadmap-scroll" role="region" aria-label="Current availability" tabIndex={0}>
      <table className="roadmap-table" data-testid="current-table">
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
          groups.map((group) => (
            <tbody key={group.category.id}>
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
                group.aspects.map((aspect) => <CurrentRow key={aspect.id} aspect={aspect} bucket={bucket} />)
              )}
            </tbody>
          ))
        )}
      </table>
    </div>
  );
}
