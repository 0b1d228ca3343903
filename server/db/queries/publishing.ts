import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../client';
import { services, snapshots, tenants } from '../schema';
import { publicPart, type FrozenCatalog } from '../../../common/catalogDiff';
import { visibleService, type ServiceRow } from './services';

/**
 * What the public pages read (docs/decisions/0120-public-pages.md): only published, active services
 * of active tenants, and only their public snapshots ("editions"). Anything else is not found.
 */

export type PublicTenant = { id: string; name: string; slug: string; embedOrigins: string[] };

/** The tenant of a public address: unknown and archived tenants are alike not found. */
export async function findPublicTenant(db: Executor, slug: string): Promise<PublicTenant | undefined> {
  const [row] = await db
    .select({ id: tenants.id, name: tenants.name, slug: tenants.slug, embedOrigins: tenants.embedOrigins })
    .from(tenants)
    .where(and(eq(tenants.slug, slug), eq(tenants.archived, false)))
    .limit(1);
  return row;
}

/** A published service that is not archived. */
export async function findPublishedService(db: Executor, tenantId: string, slug: string): Promise<ServiceRow | undefined> {
  const [row] = await db
    .select()
    .from(services)
    .where(and(visibleService(tenantId), eq(services.slug, slug), eq(services.published, true), eq(services.archived, false)))
    .limit(1);
  return row;
}

export interface EditionSummary {
  id: string;
  serviceId: string;
  label: string;
  note: string;
  createdAt: Date;
}

const editionColumns = {
  id: snapshots.id,
  serviceId: snapshots.serviceId,
  label: snapshots.label,
  note: snapshots.note,
  createdAt: snapshots.createdAt,
};

/** The public editions of the given services, newest first (internal snapshots never). */
export function listEditions(db: Executor, tenantId: string, serviceIds: string[], limit: number): Promise<EditionSummary[]> {
  if (!serviceIds.length) return Promise.resolve([]);
  return db
    .select(editionColumns)
    .from(snapshots)
    .where(and(eq(snapshots.tenantId, tenantId), inArray(snapshots.serviceId, serviceIds), eq(snapshots.visibility, 'public')))
    .orderBy(desc(snapshots.createdAt), desc(snapshots.id))
    .limit(limit);
}

/** The frozen catalogs of the given public editions, by id. */
export async function loadEditionData(db: Executor, tenantId: string, ids: string[]): Promise<Map<string, EditionData>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: snapshots.id, data: snapshots.data })
    .from(snapshots)
    .where(and(eq(snapshots.tenantId, tenantId), inArray(snapshots.id, ids), eq(snapshots.visibility, 'public')));
  // Public snapshots taken before they left out the categories of private aspects only name them: read without.
  return new Map(rows.map((r) => [r.id, publicPart(r.data as EditionData)]));
}

/** A public snapshot's `data`: the frozen catalog with the service's fields as they were. */
export interface EditionData extends FrozenCatalog {
  service: { name: string; description: string; service_owner: string; subscription_model: string; icon_url: string | null };
  taken_at: string;
}

export interface PublishedService {
  id: string;
  slug: string;
  /** The latest public edition: its id, date and the service's fields as it froze them. */
  editionId: string;
  editionAt: Date;
  service: EditionData['service'];
}

/** The tenant's published services that have at least one public edition, by the name their latest edition gives. */
export async function listPublishedServices(db: Executor, tenantId: string): Promise<PublishedService[]> {
  const res = await db.execute(sql`
    select distinct on (s.service_id) s.id, s.service_id, s.created_at, s.data->'service' as service, sv.slug
    from snapshots s join services sv on sv.id = s.service_id and sv.tenant_id = s.tenant_id
    where s.tenant_id = ${tenantId} and s.visibility = 'public' and sv.published and not sv.archived and not sv.importing
    order by s.service_id, s.created_at desc, s.id desc`);
  const rows = (res as unknown as { rows: { id: string; service_id: string; created_at: string | Date; service: EditionData['service']; slug: string }[] })
    .rows;
  return rows
    .map((r) => ({ id: r.service_id, slug: r.slug, editionId: r.id, editionAt: new Date(r.created_at), service: r.service }))
    .sort((a, b) => a.service.name.localeCompare(b.service.name) || a.id.localeCompare(b.id));
}
