import { sql } from 'drizzle-orm';
import type { Executor } from '../db';
import { namesLike, slugsLike } from '../db/queries/settings';
import { services } from '../db/schema';
import { conflict } from '../errors';
import type { Actor } from '../plugins/context';
import { writeAudit } from './audit';
import { prepareImport, type CatalogDocument, type PreparedImport } from './catalogFile';
import { MAX_NAME_LENGTH, MAX_SLUG_LENGTH } from '../../common/limits';
import { M } from '../../common/messages';
import type { ImportNaming } from '../../common/schemas/services';

export { IMPORT_MESSAGES, readCatalogFile, prepareImport, type CatalogDocument, type PreparedImport } from './catalogFile';

/** The first free slug of the tenant: the base itself, else base-2, base-3... */
export async function findFreeSlug(db: Executor, tenantId: string, base: string): Promise<string> {
  const taken = await slugsLike(db, tenantId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, MAX_SLUG_LENGTH - String(n).length - 1)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The first name no service of the tenant has: the base itself, else 'base (2)', 'base (3)'... */
export async function findFreeName(db: Executor, tenantId: string, base: string): Promise<string> {
  const taken = await namesLike(db, tenantId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${base.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** What the import dialog proposes for a file: its own name and slug, and free ones of the tenant. */
export async function proposeNaming(db: Executor, tenantId: string, prepared: PreparedImport) {
  const { name, slug } = prepared.service;
  return { name, slug, proposedName: await findFreeName(db, tenantId, name), proposedSlug: await findFreeSlug(db, tenantId, slug) };
}

/** Creates the service of a validated document in the tenant: all or nothing, one insert per table. */
export async function importService(db: Executor, actor: Actor, tenantId: string, doc: CatalogDocument) {
  return writeImport(db, actor, tenantId, prepareImport(doc));
}

/** Writes a prepared import in one transaction, one statement per table whatever the size. */
export async function writeImport(db: Executor, actor: Actor, tenantId: string, prepared: PreparedImport, naming: ImportNaming = {}) {
  const changedBy = actor.user.email;
  const json = (text: string) => sql`${text}::json`;

  return db.transaction(async (tx) => {
    // A slug the caller chose is kept or refused as Create Service does; without one, the file's
    // slug gets the first free numeric suffix.
    const slug = naming.slug ?? (await findFreeSlug(tx, tenantId, prepared.service.slug));
    const name = naming.name ?? prepared.service.name;
    const [service] = await tx
      .insert(services)
      .values({ tenantId, ...prepared.service, name, slug })
      .onConflictDoNothing()
      .returning();
    if (!service) throw conflict(naming.slug ? M.slugTaken : 'A service with this slug was created at the same time. Please try again.');
    const sid = service.id;
    if (prepared.categories) {
      await tx.execute(sql`insert into categories (id, tenant_id, service_id, name, position)
        select x.id, ${tenantId}::uuid, ${sid}::uuid, x.name, x.position from json_to_recordset(${json(prepared.categories)}) as x(id uuid, name text, position int)`);
    }
    if (prepared.aspects) {
      await tx.execute(sql`insert into aspects (id, tenant_id, service_id, category_id, title, description, is_public, position)
        select x.id, ${tenantId}::uuid, ${sid}::uuid, x.category_id, x.title, x.description, x.is_public, x.position
        from json_to_recordset(${json(prepared.aspects)}) as x(id uuid, category_id uuid, title text, description text, is_public boolean, position int)`);
    }
    const texts = prepared.availabilities;
    if (texts) {
      // The texts and their first history rows in one statement; the arrays are read once (k).
      await tx.execute(sql`with k as materialized (
          select ${texts.aspectIds}::uuid[] as aspect_ids, ${texts.quarters}::text[] as quarters
        ), x as materialized (
          select k.aspect_ids[r.a] as aspect_id, k.quarters[r.q] as time_bucket, r.value
          from k, unnest(${texts.aspectAt}::int[], ${texts.quarterAt}::int[], ${texts.values}::text[]) as r(a, q, value)
        ), texts as (
          insert into availabilities (tenant_id, service_id, aspect_id, time_bucket, value)
          select ${tenantId}::uuid, ${sid}::uuid, x.aspect_id, x.time_bucket, x.value from x
        )
        insert into availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by)
        select ${tenantId}::uuid, ${sid}::uuid, x.aspect_id, x.time_bucket, x.value, ${changedBy} from x`);
    }
    if (prepared.roles) {
      await tx.execute(sql`insert into actor_roles (tenant_id, service_id, role_name, position)
        select ${tenantId}::uuid, ${sid}::uuid, x.role_name, x.position from json_to_recordset(${json(prepared.roles)}) as x(role_name text, position int)`);
    }
    if (prepared.templates) {
      await tx.execute(sql`insert into quick_templates (tenant_id, service_id, template_text, position)
        select ${tenantId}::uuid, ${sid}::uuid, x.template_text, x.position
        from json_to_recordset(${json(prepared.templates)}) as x(template_text text, position int)`);
    }
    await writeAudit(tx, actor, {
      tenantId,
      action: 'service.import',
      targetType: 'service',
      targetId: sid,
      details: { name, slug, categories: prepared.counts.categories, aspects: prepared.counts.aspects },
    });
    return service;
  });
}
