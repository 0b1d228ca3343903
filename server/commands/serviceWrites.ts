import { M } from '../../common/messages';
import { idSchema } from '../../common/schemas/catalog';
import type { Db, Executor } from '../db';
import { lockService, updateService, type ServiceRow } from '../db/queries/services';
import { conflict, notFound } from '../errors';

/** A path id that is not a uuid names no record: 404, before the database sees it. */
export function parsePathId(value: unknown): string {
  const parsed = idSchema.safeParse(value);
  if (!parsed.success) throw notFound();
  return parsed.data;
}

/** The `:id` of a route's path (`req.params`), checked as `parsePathId` does. */
export function parseIdParam(params: unknown): string {
  return parsePathId((params as { id?: unknown } | null)?.id);
}

/** Archived services are read-only (CONTRACT section 4). */
export function assertWritable(service: ServiceRow): void {
  if (service.archived) throw conflict(M.serviceArchivedConflict);
}

/**
 * Inside a write transaction: locks the service row (writes to one service run one at a time),
 * 404 when it is gone, 409 when it is archived and therefore read-only.
 */
export async function loadWritableService(tx: Executor, tenantId: string, serviceId: string): Promise<ServiceRow> {
  const service = await lockService(tx, tenantId, serviceId);
  if (!service) throw notFound(M.serviceNotFound);
  if (service.archived) throw conflict(M.serviceArchivedConflict);
  return service;
}

/** Marks a service's content as changed: bumps its version and last_updated in the same transaction. */
export async function touchService(tx: Executor, tenantId: string, serviceId: string): Promise<ServiceRow> {
  const row = await updateService(tx, tenantId, serviceId, {});
  if (!row) throw notFound(M.serviceNotFound);
  return row;
}

/**
 * One change to a service's content, in one transaction: the service locked and writable (404 when
 * gone, 409 when archived), the work, then the service's version bumped.
 */
export async function changeServiceContent<T>(
  db: Db,
  tenantId: string,
  serviceId: string,
  work: (tx: Executor, service: ServiceRow) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const service = await loadWritableService(tx, tenantId, serviceId);
    const result = await work(tx, service);
    await touchService(tx, tenantId, serviceId);
    return result;
  });
}
