import type { Executor } from '../db/client';
import { writeAvailabilities, writeAvailability, type AvailabilityWrite, type AvailabilityWriteResult } from '../db/queries/catalog';

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
  const { key, value, changedBy, expected } = pending.write;
  try {
    pending.resolve(await writeAvailability(db, key, value, changedBy, expected));
  } catch (err) {
    pending.reject(err);
  }
}
