import { and, eq, sql } from 'drizzle-orm';
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

/** Creates the service of a validated document in the tenant: all or nothing, in steps (writeImport). */
export async function importService(db: Executor, actor: Actor, tenantId: string, doc: CatalogDocument) {
  return writeImport(db, actor, tenantId, prepareImport(doc));
}

/**
 * The statements one step of an import runs, by database. The embedded database serves one session,
 * so each step is one short statement; PostgreSQL serves other requests on other connections
 * whatever a transaction holds, so there a step runs several, saving their commits.
 */
export const IMPORT_STATEMENTS_PER_STEP = { pglite: 1, postgres: 10 } as const;

/**
 * Writes a prepared import in steps (docs/decisions/0136-imports-in-steps.md): the service is created
 * hidden, its rows are written in short statements of their own (each its own transaction, the
 * event loop given a turn between them), and one last short transaction makes it visible with its
 * audit row. So other requests, on the embedded database's one session too, wait at most one step.
 * The user sees all or nothing: until the last step the service exists for no reader, and an
 * import that fails removes what it wrote.
 */
export async function writeImport(
  db: Executor,
  actor: Actor,
  tenantId: string,
  prepared: PreparedImport,
  naming: ImportNaming = {},
  statementsPerStep: number = IMPORT_STATEMENTS_PER_STEP.pglite,
) {
  const changedBy = actor.user.email;
  const json = (text: string) => sql`${text}::json`;

  const hidden = await importStep(db, async (tx) => {
    // A slug the caller chose is kept or refused as Create Service does; without one, the file's
    // slug gets the first free numeric suffix (a hidden service's slug counts as taken).
    const slug = naming.slug ?? (await findFreeSlug(tx, tenantId, prepared.service.slug));
    const name = naming.name ?? prepared.service.name;
    const [row] = await tx
      .insert(services)
      .values({ tenantId, ...prepared.service, name, slug, importing: true })
      .onConflictDoNothing()
      .returning();
    if (!row) throw conflict(naming.slug ? M.slugTaken : 'A service with this slug was created at the same time. Please try again.');
    return row;
  });
  const sid = hidden.id;
  try {
    // Each piece of the prepared rows is one statement.
    const statements: ((tx: Executor) => Promise<unknown>)[] = [];
    for (const rows of prepared.categories) {
      statements.push((tx) =>
        tx.execute(sql`insert into categories (id, tenant_id, service_id, name, position)
          select x.id, ${tenantId}::uuid, ${sid}::uuid, x.name, x.position from json_to_recordset(${json(rows)}) as x(id uuid, name text, position int)`),
      );
    }
    for (const rows of prepared.aspects) {
      statements.push((tx) =>
        tx.execute(sql`insert into aspects (id, tenant_id, service_id, category_id, title, description, is_public, position)
          select x.id, ${tenantId}::uuid, ${sid}::uuid, x.category_id, x.title, x.description, x.is_public, x.position
          from json_to_recordset(${json(rows)}) as x(id uuid, category_id uuid, title text, description text, is_public boolean, position int)`),
      );
    }
    for (const texts of prepared.availabilities) {
      // The texts and their first history rows in one statement; the arrays are read once (k).
      statements.push((tx) =>
        tx.execute(sql`with k as materialized (
            select ${texts.aspectIds}::uuid[] as aspect_ids, ${texts.quarters}::text[] as quarters
          ), x as materialized (
            select k.aspect_ids[r.a] as aspect_id, k.quarters[r.q] as time_bucket, r.value
            from k, unnest(${texts.aspectAt}::int[], ${texts.quarterAt}::int[], ${texts.values}::text[]) as r(a, q, value)
          ), texts as (
            insert into availabilities (tenant_id, service_id, aspect_id, time_bucket, value)
            select ${tenantId}::uuid, ${sid}::uuid, x.aspect_id, x.time_bucket, x.value from x
          )
          insert into availability_history (tenant_id, service_id, aspect_id, time_bucket, value, changed_by)
          select ${tenantId}::uuid, ${sid}::uuid, x.aspect_id, x.time_bucket, x.value, ${changedBy} from x`),
      );
    }
    const { roles, templates } = prepared;
    if (roles || templates) {
      statements.push(async (tx) => {
        if (roles) {
          await tx.execute(sql`insert into actor_roles (tenant_id, service_id, role_name, position)
            select ${tenantId}::uuid, ${sid}::uuid, x.role_name, x.position from json_to_recordset(${json(roles)}) as x(role_name text, position int)`);
        }
        if (templates) {
          await tx.execute(sql`insert into quick_templates (tenant_id, service_id, template_text, position)
            select ${tenantId}::uuid, ${sid}::uuid, x.template_text, x.position
            from json_to_recordset(${json(templates)}) as x(template_text text, position int)`);
        }
      });
    }
    for (let i = 0; i < statements.length; i += statementsPerStep) {
      await importStep(db, async (tx) => {
        for (const statement of statements.slice(i, i + statementsPerStep)) await statement(tx);
      });
    }
    // The last step: the service appears, complete, with its audit row.
    return await db.transaction(async (tx) => {
      const [service] = await tx
        .update(services)
        .set({ importing: false, lastUpdated: sql`now()` })
        .where(and(eq(services.tenantId, tenantId), eq(services.id, sid), eq(services.importing, true)))
        .returning();
      if (!service) throw new Error('The service being imported disappeared before it was complete');
      await writeAudit(tx, actor, {
        tenantId,
        action: 'service.import',
        targetType: 'service',
        targetId: sid,
        details: { name: service.name, slug: service.slug, categories: prepared.counts.categories, aspects: prepared.counts.aspects },
      });
      return service;
    });
  } catch (err) {
    // The import's own error is the answer; a hidden service this removal misses is seen by no
    // one and removed at the next start (removeLeftBehindImports).
    await removeHiddenService(db, tenantId, sid).catch(() => undefined);
    throw err;
  }
}

/**
 * One step of an import: its own short transaction, in which the webhook triggers stay silent
 * (migration 0015: the service is told of once, when it is made visible); the event loop then gets
 * a turn, so requests waiting for the database go before the next step. A step's commit does not
 * wait for its log to reach the disk: the last step's commit, which makes the service visible,
 * does, and with it every step before it; a step lost in a crash belongs to a hidden service.
 */
async function importStep<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('catalog.importing', 'on', true), set_config('synchronous_commit', 'off', true)`);
    return fn(tx);
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
  return result;
}

/** The aspects one step of removing a hidden service deletes (their texts and history go with them). */
const REMOVE_STEP_ASPECTS = 100;

/**
 * Removes a service an import left hidden, in steps as it was written: its aspects a few at a time
 * (the texts and history go with each by ON DELETE CASCADE), then the service with the rest.
 */
export async function removeHiddenService(db: Executor, tenantId: string, serviceId: string): Promise<void> {
  for (;;) {
    const res = await importStep(db, (tx) =>
      tx.execute(sql`delete from aspects where tenant_id = ${tenantId}::uuid and id in (
        select a.id from aspects a join services s on s.id = a.service_id and s.tenant_id = a.tenant_id
        where a.tenant_id = ${tenantId}::uuid and a.service_id = ${serviceId}::uuid and s.importing limit ${REMOVE_STEP_ASPECTS})`),
    );
    if (!(res as unknown as { rowCount?: number | null }).rowCount) break;
  }
  await importStep(db, (tx) => tx.delete(services).where(and(eq(services.tenantId, tenantId), eq(services.id, serviceId), eq(services.importing, true))));
}

/** How old a hidden service must be before it is taken for one a stopped process left behind. */
export const LEFT_BEHIND_AFTER_MS = 60 * 60 * 1000;

/**
 * Removes the hidden services of imports that never finished: a process stopped part-way (a crash,
 * a restart). Run at start, across tenants; an import takes seconds, so a hidden service older
 * than LEFT_BEHIND_AFTER_MS is no longer being written. Answers how many it removed.
 */
export async function removeLeftBehindImports(db: Executor): Promise<number> {
  const rows = await db
    .select({ id: services.id, tenantId: services.tenantId })
    .from(services)
    .where(and(eq(services.importing, true), sql`${services.createdAt} < now() - ${LEFT_BEHIND_AFTER_MS}::int * interval '1 millisecond'`));
  for (const row of rows) await removeHiddenService(db, row.tenantId, row.id);
  return rows.length;
}
