import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/client';
import {
  cellTexts,
  servicesOfAspects,
  writeAvailabilities,
  writeAvailability,
  writeCellsOfService,
  type AvailabilityWrite,
  type AvailabilityWriteResult,
  type CellWrite,
} from '../db/queries/catalog';
import { lockService } from '../db/queries/services';
import { M } from '../../common/messages';
import { CATALOG_MESSAGES as C, expectedText } from '../../common/schemas/catalog';
import { conflict, invalid, notFound } from '../errors';
import type { Actor } from '../plugins/context';
import { writeAudit, type AuditAction } from './audit';

/** The most writes sent in one statement. */
export const MAX_BATCH = 64;

interface Pending {
  write: AvailabilityWrite;
  resolve: (result: AvailabilityWriteResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Availability writes of one tenant, committed in groups (docs/decisions/0105-availability-write-batches.md).
 *
 * A write that finds none of its tenant's writes under way is sent at once, alone. Writes that
 * arrive while one is under way wait for it and are then sent together, in the order they came, as
 * one statement (catalog_write_availabilities) that makes each of them exactly as it would have
 * been made alone: the same checks, history row and service version, and one write's conflict or
 * missing aspect does not touch the others. Writes to one service ran one at a time behind its lock
 * anyway; sending them together spares every one but the first its own round trip, lock wait and
 * commit, which is what held a write at 10 in flight to about ten times one write's time.
 *
 * Every caller has authorized its write before handing it over, and gets its own result once the
 * statement committed, after the request caches learned of it. Should a group fail as a whole,
 * each of its writes is tried again alone, so that only a write that fails by itself fails.
 */
export class AvailabilityWriter {
  private readonly lanes = new Map<string, Pending[]>();

  /**
   * Makes `write` through `db`, which works in the write's tenant: a group is sent through the
   * executor of the write that started it, always one of the same tenant.
   */
  write(db: Executor, write: AvailabilityWrite): Promise<AvailabilityWriteResult> {
    return new Promise((resolve, reject) => {
      const tenantId = write.key.tenantId;
      const waiting = this.lanes.get(tenantId);
      if (waiting) {
        waiting.push({ write, resolve, reject });
        return;
      }
      this.lanes.set(tenantId, []);
      void this.drain(db, tenantId, [{ write, resolve, reject }]);
    });
  }

  /** How many writes wait behind the one under way, per tenant (for tests). */
  waiting(tenantId: string): number {
    return this.lanes.get(tenantId)?.length ?? 0;
  }

  private async drain(db: Executor, tenantId: string, first: Pending[]): Promise<void> {
    let group = first;
    for (;;) {
      await send(db, tenantId, group);
      const waiting = this.lanes.get(tenantId)!;
      if (!waiting.length) {
        this.lanes.delete(tenantId);
        return;
      }
      group = waiting.splice(0, MAX_BATCH);
    }
  }
}

async function send(db: Executor, tenantId: string, group: Pending[]): Promise<void> {
  if (group.length === 1) return sendAlone(db, group[0]!);
  let results: AvailabilityWriteResult[];
  try {
    results = await writeAvailabilities(
      db,
      tenantId,
      group.map((p) => p.write),
    );
  } catch {
    for (const pending of group) await sendAlone(db, pending);
    return;
  }
  group.forEach((pending, i) => pending.resolve(results[i]!));
}

async function sendAlone(db: Executor, pending: Pending): Promise<void> {
  const { key, value, changedBy, expected, audit } = pending.write;
  try {
    pending.resolve(await writeAvailability(db, key, value, changedBy, expected, audit));
  } catch (err) {
    pending.reject(err);
  }
}

/** A cell of a batch as the request names it, its text trimmed by the shared schema. */
export interface CellInput {
  aspectId: string;
  timeBucket: string;
  value: string;
  expectedValue?: string | null;
}

/** A cell whose stored text is not the one its write started from, as the 409 names it. */
export interface CellConflict {
  aspect_id: string;
  time_bucket: string;
  current: string | null;
}

/** What a batch came to: the cells whose text changed, and the service's version after them (null when none did). */
export interface CellsWritten {
  changed: CellWrite[];
  unchanged: number;
  version: number | null;
  /** The request the written cells' history rows carry. */
  requestId: string;
}

/**
 * Where a request's cells lie, for its audit entry: the first and last cell as sent, how many
 * aspects, and the earliest and latest quarter.
 */
export function cellRange(cells: readonly { aspectId: string; timeBucket: string }[]) {
  if (!cells.length) return {};
  const first = cells[0]!;
  const last = cells[cells.length - 1]!;
  const quarters = cells.map((c) => c.timeBucket).sort();
  return {
    first: { aspectId: first.aspectId, timeBucket: first.timeBucket },
    last: { aspectId: last.aspectId, timeBucket: last.timeBucket },
    aspects: new Set(cells.map((c) => c.aspectId)).size,
    quarters: [quarters[0]!, quarters[quarters.length - 1]!],
  };
}

/**
 * Writes many cells of one service in the caller's transaction, all or nothing
 * (docs/decisions/0125-availability-batch.md), with the rules of one cell's write: every cell a
 * quarter of the service's timeline (else 400 naming the first that is not), the caller may
 * edit the service (checked by the policies, service role assignments counted, before this runs),
 * the service is locked and must not be archived (409), every aspect must be one of the tenant's
 * (404) and of this service (400), each `expectedValue` must match the stored text or the whole
 * batch is refused with a 409 naming every conflicting cell. Only the cells whose text changes are
 * written, each with its history row; the service's version goes up once, and one audit row
 * records the batch with its count.
 */
export async function writeServiceCells(
  tx: Executor,
  actor: Actor,
  tenantId: string,
  serviceId: string,
  cells: readonly CellInput[],
  /** The batch's audit row; null: the caller writes its own (a CSV apply in steps writes one for all of them). */
  audit: { action: AuditAction; details?: Record<string, unknown> } | null = { action: 'availability.batch' },
  /** The request the cells' history rows and audit entry carry (a CSV apply in steps passes one for all its steps). */
  requestId: string = randomUUID(),
): Promise<CellsWritten> {
  const locked = await lockService(tx, tenantId, serviceId);
  if (!locked) throw notFound(M.serviceNotFound);
  if (locked.archived) throw conflict(M.serviceArchivedConflict);
  // The ids as the database spells them (a uuid may come in capitals); one write per cell.
  const normal = cells.map((c) => ({ ...c, aspectId: c.aspectId.toLowerCase() }));
  // Only the quarters of the service's timeline are written; what is stored outside it stays.
  const timeline = new Set(locked.timeline);
  const outside = normal.findIndex((c) => !timeline.has(c.timeBucket));
  if (outside >= 0) {
    const cell = normal[outside]!;
    throw invalid(C.cellOutsideTimeline(outside, cell.aspectId, cell.timeBucket), `cells.${outside}.timeBucket`);
  }
  const seen = new Set<string>();
  for (const cell of normal) {
    const key = `${cell.aspectId}|${cell.timeBucket}`;
    if (seen.has(key)) throw invalid(C.duplicateCell, 'cells');
    seen.add(key);
  }
  const aspectIds = [...new Set(normal.map((c) => c.aspectId))];
  const owners = await servicesOfAspects(tx, tenantId, aspectIds);
  if (aspectIds.some((id) => !owners.has(id))) throw notFound();
  if (aspectIds.some((id) => owners.get(id) !== serviceId)) throw invalid(C.cellNotInService, 'cells');
  const stored = await cellTexts(tx, tenantId, serviceId, aspectIds);
  const conflicts: CellConflict[] = [];
  const changed: CellWrite[] = [];
  for (const cell of normal) {
    const current = stored.get(`${cell.aspectId}|${cell.timeBucket}`) ?? null;
    const expected = expectedText(cell.expectedValue);
    if (expected !== undefined && current !== expected) conflicts.push({ aspect_id: cell.aspectId, time_bucket: cell.timeBucket, current });
    else if (cell.value !== (current ?? '')) changed.push({ aspectId: cell.aspectId, timeBucket: cell.timeBucket, value: cell.value });
  }
  if (conflicts.length) throw conflict(C.cellsChanged, { conflicts });
  if (!changed.length) return { changed, unchanged: normal.length, version: null, requestId };
  const version = await writeCellsOfService(tx, tenantId, serviceId, changed, actor.user.email || actor.user.name, requestId);
  if (audit) {
    await writeAudit(tx, actor, {
      tenantId,
      action: audit.action,
      targetType: 'service',
      targetId: serviceId,
      requestId,
      details: { count: changed.length, ...cellRange(changed), ...audit.details },
    });
  }
  return { changed, unchanged: normal.length - changed.length, version, requestId };
}
