import { randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { cellTexts, writeCellsOfService } from '../db/queries/catalog';
import { lockService } from '../db/queries/services';
import { aspects, categories, csvApplies, type CsvApplyJournal } from '../db/schema';
import { conflict, notFound } from '../errors';
import { M } from '../../common/messages';
import { sanitizeRichText } from '../content/sanitize';
import { timeOrderedId } from '../content/timeOrderedId';
import type { Actor } from '../plugins/context';
import { cellRange, writeServiceCells } from './availabilityWrites';
import { writeAudit } from './audit';
import type { CsvPlan } from './csvImport';

/**
 * A large CSV apply in steps (docs/decisions/0139-csv-apply-in-steps.md). On the embedded database,
 * which serves one session, the apply's one transaction made every other request wait for all of it
 * (1.2 to 1.6 s at 40,000 cells). In steps, each its own short transaction with the event loop given
 * a turn between them, others wait at most one step. All or nothing still holds for the outcome: the
 * whole apply is written down first (its journal, `csv_applies`), and a step that fails, or a
 * process that stops part-way, has what was written undone from it.
 */

/** The most cells one step of a CSV apply writes, by database; 0: the whole apply in one transaction. */
export const CSV_APPLY_STEP_CELLS_DEFAULT = { pglite: 1_000, postgres: 0 } as const;
/** The most aspects (created or changed) one step writes. */
const STEP_ASPECTS = 250;

export interface CsvApplySteps {
  /** The most cells one step writes (and the size from which an apply is written in steps). */
  stepCells: number;
  /** Called after each step has committed, with its number from 1 (for tests). */
  afterStep?: (step: number) => Promise<void> | void;
}

/** What a planned apply writes, as the journal keeps it. */
export interface CsvApplyWork {
  categories: { name: string }[];
  /** New aspects (descriptions as HTML), by their category: an existing one's id, or the place of a new one in `categories`. */
  aspects: { category: string | number; title: string; description: string; isPublic: boolean }[];
  updates: { id: string; isPublic?: boolean; description?: string }[];
  /** Cells by aspect: an existing one's id, or the place of a new one in `aspects`. */
  cells: { aspect: string | number; quarter: string; value: string }[];
  details: Record<string, unknown>;
  plan: CsvPlan;
}

/**
 * Whether a file of `rows` rows and `quarters` quarter columns can be more than one step's worth:
 * each row adds or changes at most one aspect and `quarters` cells. A file that cannot is applied in
 * one transaction without planning it first.
 */
export function mayNeedSteps(rows: number, quarters: number, o: CsvApplySteps): boolean {
  return overOneStep(rows * quarters, rows, o);
}

/** Whether `work` is more than one step's worth. */
export function needsSteps(work: CsvApplyWork, o: CsvApplySteps): boolean {
  return overOneStep(work.cells.length, work.aspects.length + work.updates.length, o);
}

/** Whether so many cells and aspects (created or changed) are more than one step writes. */
const overOneStep = (cells: number, aspects: number, o: CsvApplySteps) => o.stepCells > 0 && (cells > o.stepCells || aspects > STEP_ASPECTS);

/** [aspect id, quarter, text]: a cell of a new aspect (undone with its aspect, so not in the journal). */
type NewCell = [string, string, string];

/** The journal's pieces in the order they are written, each one step; the new aspects' cells come last. */
function stepsOf(j: CsvApplyJournal, stepCells: number, newCells: NewCell[] = []) {
  const chunks = <T>(items: T[], size: number) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
  return [
    ...(j.categories.length ? [{ categories: j.categories }] : []),
    ...chunks(j.aspects, STEP_ASPECTS).map((aspects) => ({ aspects })),
    ...chunks(j.updates, STEP_ASPECTS).map((updates) => ({ updates })),
    ...chunks(j.cells, stepCells).map((cells) => ({ cells })),
    ...chunks(newCells, stepCells).map((cells) => ({ newCells: cells })),
  ];
}

/** One step: its own transaction, then a turn of the event loop for the requests waiting. */
async function step<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  const result = await db.transaction(fn);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return result;
}

/**
 * Applies planned work in steps: the journal first (refused with 409 while another apply of the
 * service is under way, or on an archived service), then the categories, aspects, aspect changes
 * and cells, each cell written only if it still holds what the plan read (someone's edit meanwhile
 * fails the apply with the 409 of a conflicting paste, and is kept), then the audit row. Any failure
 * undoes what was written, and answers the failure.
 */
export async function applyInSteps(db: Executor, actor: Actor, tenantId: string, serviceId: string, work: CsvApplyWork, o: CsvApplySteps): Promise<CsvPlan> {
  const changedBy = actor.user.email || actor.user.name;
  const { journal, newCells } = await step(db, async (tx) => {
    const locked = await lockService(tx, tenantId, serviceId);
    if (!locked) throw notFound(M.serviceNotFound);
    if (locked.archived) throw conflict(M.serviceArchivedConflict);
    const chosen = await journalOf(tx, tenantId, serviceId, work);
    const [row] = await tx
      .insert(csvApplies)
      .values({ tenantId, serviceId, changedBy, stepCells: o.stepCells, journal: chosen.journal })
      .onConflictDoNothing()
      .returning({ serviceId: csvApplies.serviceId });
    if (!row) throw conflict(CSV_APPLY_BUSY);
    return chosen;
  });
  const steps = stepsOf(journal, o.stepCells, newCells);
  // One request for every step: the apply's audit entry opens the history of all its cells.
  const requestId = randomUUID();
  try {
    for (const [i, piece] of steps.entries()) {
      await step(db, async (tx) => {
        if ('categories' in piece) {
          await tx.insert(categories).values(piece.categories.map((c) => ({ ...c, tenantId, serviceId })));
        } else if ('aspects' in piece) {
          await tx.insert(aspects).values(piece.aspects.map((a) => ({ ...a, tenantId, serviceId })));
        } else if ('updates' in piece) {
          for (const u of piece.updates) await updateAspectFields(tx, tenantId, u.id, u.after);
        } else if ('cells' in piece) {
          const cells = piece.cells.map(([aspectId, timeBucket, before, value]) => ({ aspectId, timeBucket, value, expectedValue: before || null }));
          await writeServiceCells(tx, actor, tenantId, serviceId, cells, null, requestId);
        } else {
          const cells = piece.newCells.map(([aspectId, timeBucket, value]) => ({ aspectId, timeBucket, value }));
          await writeServiceCells(tx, actor, tenantId, serviceId, cells, null, requestId);
        }
        const recorded = await tx
          .update(csvApplies)
          .set({ stepsDone: i + 1 })
          .where(eq(csvApplies.serviceId, serviceId))
          .returning({ serviceId: csvApplies.serviceId });
        // The journal is gone: the apply was undone meanwhile (a start that took it for left behind).
        if (!recorded.length) throw new Error('The CSV apply was undone while it ran');
      });
      await o.afterStep?.(i + 1);
    }
    await step(db, async (tx) => {
      await writeAudit(tx, actor, {
        tenantId,
        action: 'availability.csv_import',
        targetType: 'service',
        targetId: serviceId,
        requestId,
        details: {
          count: journal.cells.length + newCells.length,
          ...cellRange([...journal.cells, ...newCells].map(([aspectId, timeBucket]) => ({ aspectId, timeBucket }))),
          ...work.details,
          steps: steps.length,
        },
      });
      await tx.delete(csvApplies).where(eq(csvApplies.serviceId, serviceId));
    });
  } catch (err) {
    // The failure is the answer; an undo that fails too is tried again at the next start.
    await undoCsvApply(db, tenantId, serviceId).catch(() => undefined);
    throw err;
  }
  return work.plan;
}

export const CSV_APPLY_BUSY = 'A CSV import is being applied to this service. Try again when it is done.';

/** Whether an apply in steps of the service is under way (a one-transaction apply waits for none). */
export async function csvApplyUnderWay(tx: Executor, tenantId: string, serviceId: string): Promise<boolean> {
  const rows = await tx
    .select({ id: csvApplies.serviceId })
    .from(csvApplies)
    .where(and(eq(csvApplies.tenantId, tenantId), eq(csvApplies.serviceId, serviceId)));
  return rows.length > 0;
}

/**
 * The work with every new row's id chosen, the aspects' positions after the last of their category,
 * and every existing aspect's cell with its text before; the new aspects' cells apart.
 */
async function journalOf(tx: Executor, tenantId: string, serviceId: string, work: CsvApplyWork): Promise<{ journal: CsvApplyJournal; newCells: NewCell[] }> {
  const existingCategories = await tx
    .select({ id: categories.id, position: categories.position })
    .from(categories)
    .where(and(eq(categories.tenantId, tenantId), eq(categories.serviceId, serviceId)));
  let categoryAt = existingCategories.reduce((max, c) => Math.max(max, c.position + 1), 0);
  const newCategories = work.categories.map((c) => ({ id: timeOrderedId(), name: c.name, position: categoryAt++ }));
  const categoryIdOf = (category: string | number) => (typeof category === 'number' ? newCategories[category]!.id : category);
  const lastAspects = await tx
    .select({ categoryId: aspects.categoryId, next: sql<number>`coalesce(max(${aspects.position}) + 1, 0)::int` })
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.serviceId, serviceId)))
    .groupBy(aspects.categoryId);
  const nextAt = new Map(lastAspects.map((r) => [r.categoryId, r.next]));
  const newAspects = work.aspects.map((a) => {
    const categoryId = categoryIdOf(a.category);
    const position = nextAt.get(categoryId) ?? 0;
    nextAt.set(categoryId, position + 1);
    return { id: timeOrderedId(), categoryId, title: a.title, description: sanitizeRichText(a.description), isPublic: a.isPublic, position };
  });
  const updated = await aspectFields(
    tx,
    tenantId,
    work.updates.map((u) => u.id),
  );
  const before = new Map(updated.map((a) => [a.id, a]));
  const updates = work.updates.map((u) => {
    const was = before.get(u.id);
    if (!was) throw conflict(CSV_APPLY_CHANGED);
    const after: { isPublic?: boolean; description?: string } = {};
    const prior: { isPublic?: boolean; description?: string } = {};
    if (u.isPublic !== undefined) [after.isPublic, prior.isPublic] = [u.isPublic, was.isPublic];
    if (u.description !== undefined) [after.description, prior.description] = [sanitizeRichText(u.description), was.description];
    return { id: u.id, before: prior, after };
  });
  const existingIds = [...new Set(work.cells.flatMap((c) => (typeof c.aspect === 'string' ? [c.aspect] : [])))];
  const stored = await cellTexts(tx, tenantId, serviceId, existingIds);
  const cells: CsvApplyJournal['cells'] = [];
  const newCells: NewCell[] = [];
  for (const c of work.cells) {
    if (typeof c.aspect === 'number') newCells.push([newAspects[c.aspect]!.id, c.quarter, c.value]);
    else cells.push([c.aspect, c.quarter, stored.get(`${c.aspect}|${c.quarter}`) ?? '', c.value]);
  }
  return { journal: { categories: newCategories, aspects: newAspects, updates, cells }, newCells };
}

export const CSV_APPLY_CHANGED = 'The service changed while the CSV import was being applied. Nothing was changed: preview it again.';

/** The fields an apply changes of the aspects `ids`, as they are now. */
async function aspectFields(tx: Executor, tenantId: string, ids: string[]) {
  if (!ids.length) return [];
  return tx
    .select({ id: aspects.id, isPublic: aspects.isPublic, description: aspects.description })
    .from(aspects)
    .where(and(eq(aspects.tenantId, tenantId), inArray(aspects.id, ids)));
}

async function updateAspectFields(tx: Executor, tenantId: string, aspectId: string, fields: { isPublic?: boolean; description?: string }) {
  await tx
    .update(aspects)
    .set({ ...fields, version: sql`${aspects.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(aspects.tenantId, tenantId), eq(aspects.id, aspectId)));
}

/**
 * Undoes an apply from its journal, in steps, newest first: the cells of the steps written get their
 * text before back (a cell someone has changed since keeps theirs), the aspects changed get their
 * fields back (those changed since keep theirs), the aspects and categories created go (with what
 * is in them), and the journal last. Answers whether there was one.
 */
export async function undoCsvApply(db: Executor, tenantId: string, serviceId: string): Promise<boolean> {
  const [row] = await db
    .select()
    .from(csvApplies)
    .where(and(eq(csvApplies.tenantId, tenantId), eq(csvApplies.serviceId, serviceId)));
  if (!row) return false;
  const steps = stepsOf(row.journal, row.stepCells).slice(0, row.stepsDone).reverse();
  for (const piece of steps) {
    await step(db, async (tx) => {
      if ('cells' in piece) {
        if (!(await lockService(tx, tenantId, serviceId))) return;
        const stored = await cellTexts(tx, tenantId, serviceId, [...new Set(piece.cells.map(([aspectId]) => aspectId))]);
        const back = piece.cells
          .filter(([aspectId, quarter, , value]) => (stored.get(`${aspectId}|${quarter}`) ?? '') === value)
          .map(([aspectId, timeBucket, before]) => ({ aspectId, timeBucket, value: before }));
        if (back.length) await writeCellsOfService(tx, tenantId, serviceId, back, row.changedBy);
      } else if ('updates' in piece) {
        const ids = piece.updates.map((u) => u.id);
        const now = await aspectFields(tx, tenantId, ids);
        const current = new Map(now.map((a) => [a.id, a]));
        for (const u of piece.updates) {
          const a = current.get(u.id);
          const untouched =
            a &&
            (u.after.isPublic === undefined || a.isPublic === u.after.isPublic) &&
            (u.after.description === undefined || a.description === u.after.description);
          if (untouched) await updateAspectFields(tx, tenantId, u.id, u.before);
        }
      } else if ('aspects' in piece) {
        await tx.delete(aspects).where(
          and(
            eq(aspects.tenantId, tenantId),
            inArray(
              aspects.id,
              piece.aspects.map((a) => a.id),
            ),
          ),
        );
      } else if ('categories' in piece) {
        await tx.delete(categories).where(
          and(
            eq(categories.tenantId, tenantId),
            inArray(
              categories.id,
              piece.categories.map((c) => c.id),
            ),
          ),
        );
      }
    });
  }
  await step(db, (tx) => tx.delete(csvApplies).where(and(eq(csvApplies.tenantId, tenantId), eq(csvApplies.serviceId, serviceId))));
  return true;
}

/**
 * Undoes the applies a stopped process left part-way (run at start, across tenants). On the
 * embedded database, one process is the only writer, so every journal found at its start is left
 * behind; on PostgreSQL, another process may be applying, so only journals older than `olderThanMs`.
 */
export async function undoLeftBehindCsvApplies(db: Executor, olderThanMs: number): Promise<number> {
  const rows = await db
    .select({ tenantId: csvApplies.tenantId, serviceId: csvApplies.serviceId })
    .from(csvApplies)
    .where(olderThanMs > 0 ? lt(csvApplies.createdAt, sql`now() - ${olderThanMs}::int * interval '1 millisecond'`) : undefined);
  for (const row of rows) await undoCsvApply(db, row.tenantId, row.serviceId);
  return rows.length;
}
