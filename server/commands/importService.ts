import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db';
import { namesLike, slugsLike } from '../db/queries/settings';
import { services } from '../db/schema';
import { conflict } from '../errors';
import type { Actor } from '../plugins/context';
import { writeAudit } from './audit';
import { prepareImport, type CatalogDocument, type ImportHead, type PreparedImport } from './catalogFile';
import { MAX_NAME_LENGTH, MAX_SLUG_LENGTH } from '../../common/limits';
import { M } from '../../common/messages';
import type { ImportNaming } from '../../common/schemas/services';

export { IMPORT_MESSAGES, readCatalogFile, prepareImport, type CatalogDocument, type ImportHead, type PreparedImport } from './catalogFile';

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
export async function proposeNaming(db: Executor, tenantId: string, prepared: ImportHead) {
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
/** Steps under way at once, by database: the embedded database has one session; a PostgreSQL pool has several connections. */
export const IMPORT_PARALLEL_STEPS = { pglite: 1, postgres: 2 } as const;

export interface ImportOptions {
  /** Statements per step (IMPORT_STATEMENTS_PER_STEP of the database); one by default. */
  statementsPerStep?: number;
  /** Whether the steps skip their rows' row-by-row checks (importStep); by default, where the database allows it. */
  unchecked?: boolean;
  /** Steps under way at once when they skip their checks (IMPORT_PARALLEL_STEPS of the database); one by default. */
  parallelSteps?: number;
}

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
  options: ImportOptions = {},
) {
  const statementsPerStep = options.statementsPerStep ?? IMPORT_STATEMENTS_PER_STEP.pglite;
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
  // Steps under way (several at once on PostgreSQL): all of them end before a failed import is removed.
  const running = new Set<Promise<void>>();
  try {
    const unchecked = options.unchecked ?? (await mayWriteUnchecked(db));
    const step = (statements: Statement[]) =>
      importStep(
        db,
        async (tx) => {
          for (const statement of statements) await statement(tx);
        },
        unchecked,
      );
    // Statements are run in steps of `statementsPerStep`, as their rows come from the import thread.
    // Steps without their checks depend on no other, so where the database has connections to
    // spare (PostgreSQL) `parallelSteps` of them are under way at once.
    const parallel = unchecked ? (options.parallelSteps ?? 1) : 1;
    const pending: Statement[] = [];
    let failure: unknown = null;
    const launch = async () => {
      if (failure) throw failure;
      const run: Promise<void> = step(pending.splice(0)).then(
        () => void running.delete(run),
        (err: unknown) => {
          running.delete(run);
          failure ??= err;
        },
      );
      running.add(run);
      while (running.size >= parallel) await Promise.race(running);
      if (failure) throw failure;
    };
    const add = async (statement: Statement) => {
      pending.push(statement);
      if (pending.length >= statementsPerStep) await launch();
    };
    for (const rows of prepared.categories) {
      await add((tx) =>
        tx.execute(sql`insert into categories (id, tenant_id, service_id, name, position)
          select x.id, ${tenantId}::uuid, ${sid}::uuid, x.name, x.position from json_to_recordset(${json(rows)}) as x(id uuid, name text, position int)`),
      );
    }
    for await (const piece of prepared.pieces) {
      if ('aspects' in piece) {
        await add((tx) =>
          tx.execute(sql`insert into aspects (id, tenant_id, service_id, category_id, title, description, is_public, position)
            select x.id, ${tenantId}::uuid, ${sid}::uuid, x.category_id, x.title, x.description, x.is_public, x.position
            from json_to_recordset(${json(piece.aspects)}) as x(id uuid, category_id uuid, title text, description text, is_public boolean, position int)`),
        );
        continue;
      }
      const texts = piece.texts;
      // The texts and their first history rows in one statement; the arrays are read once (k).
      await add((tx) =>
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
      await add(async (tx) => {
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
    if (pending.length) await launch();
    await Promise.all(running);
    if (failure) throw failure;
    // Rows written without their row-by-row checks are checked here, set by set, before anyone sees them.
    if (unchecked) await importStep(db, (tx) => checkImportedRows(tx, tenantId, sid, prepared.counts));
    // The last step: the service appears, complete, with its audit row.
    return await db.transaction(async (tx) => {
      const [service] = await tx
        .update(services)
        .set({ importing: false, lastUpdated: sql`now()` })
        .where(and(eq(services.tenantId, tenantId), eq(services.id, sid), eq(services.importing, true)))
        .returning();
      if (!service) throw new Error('The service being imported disappeared before it was complete');
      // Steps written without triggers were not announced: every process's caches learn of the service's rows now.
      if (unchecked) await announceImportedRows(tx, tenantId, sid);
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
    await Promise.all(running);
    await removeHiddenService(db, tenantId, sid).catch(() => undefined);
    throw err;
  }
}

type Statement = (tx: Executor) => Promise<unknown>;

/**
 * Whether the database lets an import's steps skip their rows' row-by-row checks
 * (`session_replication_role`: a superuser, or a user granted SET on it; always on the embedded
 * database). Asked once per database.
 */
const uncheckedWrites = new WeakMap<object, Promise<boolean>>();
function mayWriteUnchecked(db: Executor): Promise<boolean> {
  let answer = uncheckedWrites.get(db);
  if (!answer) {
    answer = (async () => {
      const ask = async (query: SQL) => Boolean(((await db.execute(query)) as unknown as { rows: { ok: boolean }[] }).rows[0]?.ok);
      try {
        return await ask(sql`select has_parameter_privilege(session_user, 'session_replication_role', 'SET') as ok`);
      } catch {
        // Before PostgreSQL 15: only a superuser may.
        return ask(sql`select rolsuper as ok from pg_roles where rolname = session_user`);
      }
    })();
    uncheckedWrites.set(db, answer);
  }
  return answer;
}

/**
 * The checks the skipped foreign keys would have made, for the whole service at once: every aspect
 * in one of its categories, every text (and so its history row, written from the same rows) on one
 * of its aspects, and as many rows as the file holds. Any failure fails the import, which then
 * removes what it wrote.
 */
async function checkImportedRows(tx: Executor, tenantId: string, sid: string, counts: ImportHead['counts']): Promise<void> {
  type Row = { categories: number; aspects: number; texts: number; stray_aspects: number; stray_texts: number };
  const res = await tx.execute<Row>(sql`
    with c as materialized (select id from categories where tenant_id = ${tenantId}::uuid and service_id = ${sid}::uuid),
    a as materialized (select id, category_id from aspects where tenant_id = ${tenantId}::uuid and service_id = ${sid}::uuid),
    t as materialized (select aspect_id from availabilities where tenant_id = ${tenantId}::uuid and service_id = ${sid}::uuid)
    select (select count(*) from c)::int as categories, (select count(*) from a)::int as aspects, (select count(*) from t)::int as texts,
      (select count(*) from a where not exists (select 1 from c where c.id = a.category_id))::int as stray_aspects,
      (select count(*) from t where not exists (select 1 from a where a.id = t.aspect_id))::int as stray_texts`);
  const row = (res as unknown as { rows: Row[] }).rows[0]!;
  const expected = { categories: counts.categories, aspects: counts.aspects, texts: counts.availabilities, stray_aspects: 0, stray_texts: 0 };
  for (const [key, value] of Object.entries(expected)) {
    if (row[key as keyof Row] !== value) throw new Error(`The imported rows do not hold together (${key}: ${row[key as keyof Row]}, expected ${value})`);
  }
}

/** Announces an imported service's rows on the change stream, as the skipped statement triggers would have (migration 0014). */
async function announceImportedRows(tx: Executor, tenantId: string, sid: string): Promise<void> {
  await tx.execute(sql`select catalog_announce_send(t, jsonb_build_array(jsonb_build_array(${tenantId}::text, ${sid}::text, null, null)))
    from unnest(array['categories', 'aspects', 'availabilities', 'actor_roles', 'quick_templates']) t`);
}

/**
 * One step of an import: its own short transaction, in which the webhook triggers stay silent
 * (migration 0015: the service is told of once, when it is made visible); the event loop then gets
 * a turn, so requests waiting for the database go before the next step. A step's commit does not
 * wait for its log to reach the disk: the last step's commit, which makes the service visible,
 * does, and with it every step before it; a step lost in a crash belongs to a hidden service.
 *
 * `unchecked` (where the database allows it): the step's rows skip their triggers, the foreign
 * keys' row-by-row checks among them (about half of an import's writing time); no one can touch a
 * hidden service meanwhile, and checkImportedRows makes the same checks set by set before it is
 * made visible. The role is left for a moment to set it, and taken back in the same statement.
 */
async function importStep<T>(db: Executor, fn: (tx: Executor) => Promise<T>, unchecked = false): Promise<T> {
  const result = await db.transaction(async (tx) => {
    if (unchecked) {
      await tx.execute(sql`with r as materialized (select current_setting('role') as role)
        select set_config('catalog.importing', 'on', true), set_config('synchronous_commit', 'off', true),
          set_config('role', 'none', true), set_config('session_replication_role', 'replica', true), set_config('role', r.role, true)
        from r`);
    } else {
      await tx.execute(sql`select set_config('catalog.importing', 'on', true), set_config('synchronous_commit', 'off', true)`);
    }
    return fn(tx);
  });
  await new Promise<void>((resolve) => setImmediate(resolve));
  return result;
}

/** The aspects one step of removing a hidden service deletes (their texts and history go with them). */
const REMOVE_STEP_ASPECTS = 100;

/**
 * Removes a service an import left hidden, in steps as it was written: its aspects a few at a time
 * (the texts and history go with each by ON DELETE CASCADE), then any text left on no aspect, then
 * the service with the rest.
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
  // Texts on no aspect of the service (rows written without their checks that failed them) went
  // with no aspect: they and their history rows go by the service's id.
  await importStep(db, (tx) =>
    tx.execute(sql`with stray as (
        delete from availabilities where tenant_id = ${tenantId}::uuid and service_id = ${serviceId}::uuid
          and exists (select 1 from services s where s.id = ${serviceId}::uuid and s.tenant_id = ${tenantId}::uuid and s.importing)
        returning aspect_id)
      delete from availability_history where tenant_id = ${tenantId}::uuid and service_id = ${serviceId}::uuid and aspect_id in (select aspect_id from stray)`),
  );
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
