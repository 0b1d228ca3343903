import { createContext, useContext, useLayoutEffect, useSyncExternalStore } from 'react';
import type { QuickTemplate } from '../../api/catalog';
import { readRowView, type RowView } from './gridStore';
import type { RoadmapGrid } from './useRoadmapGrid';

export interface GridContextValue {
  grid: RoadmapGrid;
  templates: QuickTemplate[];
  onHistory: (aspectId: string, bucket: string) => void;
}

export const GridContext = createContext<GridContextValue | null>(null);

const NO_VIEW: RowView = { activeCol: -1, selected: null, editingCol: -1 };
const noop = () => () => {};

/** A row's slice of the grid: it renders again only when that slice changes. */
export function useGridRow(key: string): { view: RowView; context: GridContextValue | null } {
  const context = useContext(GridContext);
  const store = context?.grid.store;
  const raw = useSyncExternalStore(store ? store.subscribe : noop, () => (store ? store.rowView(key) : ''));
  // A cell that was to take the focus before this row rendered it (an editor closed, a gap filled) takes it now.
  useLayoutEffect(() => {
    if (store?.pendingFocus) context?.grid.focusActive();
  }, [raw, store, context]);
  return { view: store ? readRowView(raw) : NO_VIEW, context };
}
