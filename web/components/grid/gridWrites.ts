import { messageOf } from '../../api/client';
import { conflictingCells, conflictingValue, writeCell, writeCells, type Aspect, type CellChange, type FullService } from '../../api/catalog';
import { serviceKeys } from '../../api/services';
import type { GridEnv } from './gridEnv';
import { GRID_MESSAGES as G } from './messages';

/** One cell's change of a step the person can undo: its text before and after. */
export interface CellEdit {
  aspectId: string;
  bucket: string;
  before: string;
  after: string;
}

/** A step of the undo history: one cell typed, or a whole paste or clearing. */
type Step = CellEdit[];

/** What a write came to. */
export type WriteResult = { ok: true } | { ok: false; err: unknown };

/** How long a cell says "saved" once its change is stored. */
const SAVED_MS = 1500;

const storedText = (aspect: Aspect, bucket: string) => aspect.availabilities[bucket] ?? '';

/**
 * The grid's writes and their undo history (docs/decisions/0126-roadmap-grid.md): a change shows
 * at once (the cached roadmap is updated) and is saved through the single-cell write or, for
 * several cells, one batch; each cell shows saving, saved or failed. Undo and redo hold the
 * person's own saved changes of this page, a paste or a clearing being one step.
 */
export class GridWrites {
  private undoStack: Step[] = [];
  private redoStack: Step[] = [];

  constructor(private readonly env: GridEnv) {}

  /** The text a cell's change starts from: what is stored, or, while it is saved or failed, what its change started from. */
  startText(aspect: Aspect, bucket: string): string {
    const status = this.env.store.status(aspect.id, bucket);
    return status && status.state !== 'saved' ? status.before : storedText(aspect, bucket);
  }

  /** The text the editor opens with: what is being saved or failed, else what is stored. */
  shownText(aspect: Aspect, bucket: string): string {
    return this.env.store.status(aspect.id, bucket)?.value ?? storedText(aspect, bucket);
  }

  /** The edits that set cells to values, leaving out the cells already holding them. */
  editsOf(targets: { aspect: Aspect; bucket: string; value: string }[]): CellEdit[] {
    const { store } = this.env;
    return targets
      .map((t) => ({ aspectId: t.aspect.id, bucket: t.bucket, before: this.startText(t.aspect, t.bucket), after: t.value.trim() }))
      .filter((e) => e.before !== e.after || store.status(e.aspectId, e.bucket)?.state === 'failed');
  }

  /** Shows the new texts in the cached roadmap at once, before the server answers. */
  private showInCatalog(cells: { aspectId: string; bucket: string; value: string }[]): void {
    const { serviceId, client } = this.env.options;
    if (!serviceId) return;
    const key = serviceKeys.full(serviceId);
    const data = client.getQueryData<FullService>(key);
    if (!data) return;
    const byAspect = new Map<string, { bucket: string; value: string }[]>();
    for (const c of cells) {
      const list = byAspect.get(c.aspectId);
      if (list) list.push(c);
      else byAspect.set(c.aspectId, [c]);
    }
    const aspects = data.resolved_data.aspects.map((a) => {
      const changes = byAspect.get(a.id);
      if (!changes) return a;
      const availabilities = { ...a.availabilities };
      for (const c of changes) {
        if (c.value) availabilities[c.bucket] = c.value;
        else delete availabilities[c.bucket];
      }
      return { ...a, availabilities };
    });
    client.setQueryData<FullService>(key, { ...data, resolved_data: { ...data.resolved_data, aspects } });
  }

  /**
   * Writes cells (one through the single-cell write, several in one batch), each expected to hold
   * `before`; records the step for undo or redo as `record` says.
   */
  async write(edits: CellEdit[], record: 'undo' | 'redo' | 'new'): Promise<WriteResult> {
    const { store, options } = this.env;
    const { serviceId } = options;
    if (!serviceId || !edits.length) return { ok: true };
    store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: { state: 'saving', value: e.after, before: e.before } })));
    this.showInCatalog(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, value: e.after })));
    const change = (e: CellEdit): CellChange => ({ aspectId: e.aspectId, timeBucket: e.bucket, value: e.after, expectedValue: e.before || null });
    try {
      if (edits.length === 1) await writeCell(change(edits[0]!));
      else await writeCells(serviceId, edits.map(change));
    } catch (err) {
      this.showInCatalog(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, value: e.before })));
      if (record !== 'new') {
        // Nothing of an undo or redo stays on screen when it is refused: the cells keep what is stored.
        store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: null })));
      } else {
        const conflicts = conflictingCells(err);
        const single = edits.length === 1 ? conflictingValue(err) : undefined;
        store.setStatuses(
          edits.map((e) => {
            const theirs = conflicts?.find((c) => c.aspect_id === e.aspectId && c.time_bucket === e.bucket);
            const current = theirs ? (theirs.current ?? '') : single;
            const text = current !== undefined ? G.changedBySomeoneElse(current) : messageOf(err);
            return { aspectId: e.aspectId, bucket: e.bucket, status: { state: 'failed', value: e.after, before: current ?? e.before, message: text } };
          }),
        );
      }
      return { ok: false, err };
    }
    store.setStatuses(edits.map((e) => ({ aspectId: e.aspectId, bucket: e.bucket, status: { state: 'saved', value: e.after, before: e.before } })));
    if (record === 'new') {
      this.undoStack.push(edits);
      this.redoStack = [];
    } else if (record === 'undo') this.redoStack.push(edits.map((e) => ({ ...e, before: e.after, after: e.before })));
    else this.undoStack.push(edits);
    this.settle(edits);
    return { ok: true };
  }

  /** The cells say "saved" for a moment; the roadmap is read again from the server. */
  private settle(cells: { aspectId: string; bucket: string }[]): void {
    const { store, options } = this.env;
    setTimeout(() => {
      store.setStatuses(cells.filter((c) => store.status(c.aspectId, c.bucket)?.state === 'saved').map((c) => ({ ...c, status: null })));
    }, SAVED_MS);
    void options.client.invalidateQueries({ queryKey: serviceKeys.all });
  }

  /** Writes a failed cell's text again, over what someone else stored when that was the failure. */
  retry(aspectId: string, bucket: string): void {
    const status = this.env.store.status(aspectId, bucket);
    if (status?.state !== 'failed') return;
    void this.write([{ aspectId, bucket, before: status.before, after: status.value }], 'new');
  }

  /** Clears the selected block's quarters, as one step. */
  clearSelection(): void {
    const edits = this.editsOf(this.env.store.blockCells().map((c) => ({ ...c, value: '' })));
    if (!edits.length) return;
    void this.write(edits, 'new').then((r) => this.env.say(r.ok ? G.cleared(edits.length) : G.notSaved(messageOf(r.err))));
  }

  /**
   * Undoes the last step (puts back `before`, expecting `after` still stored) or redoes the last
   * undone one. A step refused because someone else changed a cell since is dropped; one that
   * failed otherwise (the network) stays, to be tried again.
   */
  async undoOrRedo(which: 'undo' | 'redo'): Promise<void> {
    const { store, say } = this.env;
    const stack = which === 'undo' ? this.undoStack : this.redoStack;
    const step = stack.pop();
    if (!step) {
      say(which === 'undo' ? G.nothingToUndo : G.nothingToRedo);
      return;
    }
    const edits = step.map((e) => (which === 'undo' ? { ...e, before: e.after, after: e.before } : e));
    const result = await this.write(edits, which);
    if (result.ok) {
      say(which === 'undo' ? G.undone(edits.length) : G.redone(edits.length));
      return;
    }
    const conflicts = conflictingCells(result.err);
    const single = edits.length === 1 ? conflictingValue(result.err) : undefined;
    if (conflicts?.length || single !== undefined) {
      const first = conflicts?.[0] ?? { aspect_id: edits[0]!.aspectId, time_bucket: edits[0]!.bucket };
      const row = store.indexOf(first.aspect_id);
      const title = row === undefined ? '' : ((store.rows[row] as { aspect?: Aspect }).aspect?.title ?? '');
      const count = conflicts?.length ?? 1;
      say(which === 'undo' ? G.undoRefused(title, first.time_bucket, count) : G.redoRefused(title, first.time_bucket, count));
    } else {
      // Not a conflict (the network, say): the step stays, to be tried again.
      stack.push(step);
      say(G.notSaved(messageOf(result.err)));
    }
  }
}
