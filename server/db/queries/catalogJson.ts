import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../client';
import { actorRoles, aspects, availabilities, categories, quickTemplates } from '../schema';

/*
 * A service's content built as JSON text by the database, in one statement whatever its size: the
 * catalog screen's lists (GET /services/:id/full) and the .catalog document's arrays (export).
 */

/**
 * The catalog screen's lists of one service as JSON text, each already in its response shape. The
 * aspects come one JSON object each, in display order, so that one aspect can later be replaced
 * alone (server/routes/services/fullParts.ts): `aspects` joins them with ASPECT_SEPARATOR, and
 * `aspectIds` joins their ids, in the same order, with commas.
 */
export type ServiceContentJson = {
  categories: string;
  aspects: string;
  aspectIds: string;
  roles: string;
  templates: string;
};

/**
 * Joins the aspects' JSON objects in ServiceContentJson.aspects: a control character, which JSON
 * text never holds unescaped, so splitting on it cannot cut an aspect.
 */
export const ASPECT_SEPARATOR = '\x1e';

/**
 * One aspect as the catalog screen shows it (the fields of the presenters in
 * server/presenters/catalog.ts), with its availability texts over the timeline.
 *
 * The timeline goes in as a text[] parameter, and the test against it is in the aggregate's
 * FILTER, not the WHERE clause. Under row-level security the planner estimates 1 row per table, so
 * a set-returning function in the sub-select would run again for every availability row. A WHERE
 * condition would be an index condition, and PostgreSQL 15 searches the b-tree once per quarter.
 */
function aspectJson(tenantId: string, timeline: string[]): SQL {
  return sql`json_build_object(
    'id', ${aspects.id}, 'title', ${aspects.title}, 'description', ${aspects.description},
    'is_public', ${aspects.isPublic}, 'category_id', ${aspects.categoryId}, 'service_id', ${aspects.serviceId},
    'position', ${aspects.position}, 'version', ${aspects.version},
    'availabilities', coalesce((
      select json_object_agg(${availabilities.timeBucket}, ${availabilities.value} order by ${availabilities.timeBucket})
        filter (where ${availabilities.timeBucket} = any(${sql.param(timeline)}::text[]))
      from ${availabilities}
      where ${availabilities.tenantId} = ${tenantId} and ${availabilities.aspectId} = ${aspects.id}), '{}'))::text`;
}

/**
 * Everything the catalog screen shows of one service, built by the database as JSON in one
 * statement whatever its size: categories, aspects in display order with their availability texts
 * over the timeline (texts outside it are kept but not shown), actor roles and quick templates.
 * The field names are those of the presenters in server/presenters/catalog.ts.
 */
export async function loadServiceContentJson(
  db: Executor,
  tenantId: string,
  serviceId: string,
  opts: { includePrivate: boolean; timeline: string[] },
): Promise<ServiceContentJson> {
  const aspectOrder = sql`order by ${categories.position}, ${categories.createdAt}, ${categories.id}, ${aspects.position}, ${aspects.createdAt}, ${aspects.id}`;
  const rows = await db.execute<ServiceContentJson>(sql`
    select
      (select coalesce(json_agg(json_build_object(
          'id', ${categories.id}, 'name', ${categories.name}, 'position', ${categories.position},
          'serviceId', ${categories.serviceId}, 'service_id', ${categories.serviceId})
        order by ${categories.position}, ${categories.createdAt}, ${categories.id}), '[]')::text
       from ${categories}
       where ${categories.tenantId} = ${tenantId} and ${categories.serviceId} = ${serviceId}) as categories,
      content.json as "aspects", content.ids as "aspectIds",
      (select coalesce(json_agg(json_build_object('id', ${actorRoles.id}, 'role_name', ${actorRoles.roleName}, 'position', ${actorRoles.position})
        order by ${actorRoles.position}, ${actorRoles.id}), '[]')::text
       from ${actorRoles}
       where ${actorRoles.tenantId} = ${tenantId} and ${actorRoles.serviceId} = ${serviceId}) as roles,
      (select coalesce(json_agg(json_build_object('id', ${quickTemplates.id}, 'template_text', ${quickTemplates.templateText}, 'position', ${quickTemplates.position})
        order by ${quickTemplates.position}, ${quickTemplates.id}), '[]')::text
       from ${quickTemplates}
       where ${quickTemplates.tenantId} = ${tenantId} and ${quickTemplates.serviceId} = ${serviceId}) as templates
    from (
      select coalesce(string_agg(${aspectJson(tenantId, opts.timeline)}, ${ASPECT_SEPARATOR} ${aspectOrder}), '') as json,
             coalesce(string_agg(${aspects.id}::text, ',' ${aspectOrder}), '') as ids
      from ${aspects} inner join ${categories} on ${categories.id} = ${aspects.categoryId}
      where ${aspects.tenantId} = ${tenantId} and ${aspects.serviceId} = ${serviceId}
        and (${aspects.isPublic} or ${opts.includePrivate})) as content`);
  return (rows as unknown as { rows: ServiceContentJson[] }).rows[0]!;
}

/**
 * Some aspects of a service as loadServiceContentJson answers each of them, whatever their number
 * in one statement; private aspects only when asked. Aspects that are not there (or not shown) are
 * simply absent.
 */
export async function loadAspectsJson(
  db: Executor,
  tenantId: string,
  serviceId: string,
  aspectIds: readonly string[],
  opts: { includePrivate: boolean; timeline: string[] },
): Promise<{ id: string; json: string }[]> {
  const rows = await db.execute<{ id: string; json: string }>(sql`
    select ${aspects.id} as id, ${aspectJson(tenantId, opts.timeline)} as json
    from ${aspects}
    where ${aspects.tenantId} = ${tenantId} and ${aspects.serviceId} = ${serviceId}
      and ${aspects.id} = any(${sql.param([...aspectIds])}::uuid[])
      and (${aspects.isPublic} or ${opts.includePrivate})`);
  return (rows as unknown as { rows: { id: string; json: string }[] }).rows;
}

/** The content arrays of a service's .catalog document, each as JSON text (see loadCatalogContentJson). */
export type CatalogContentJson = {
  categories: string;
  aspects: string;
  availabilities: string;
  roles: string;
  templates: string;
};

/**
 * A service's content as the .catalog document holds it, in one statement that builds each array's
 * JSON in the database: a 10,000-aspect service has 120,000 texts, which as rows the driver would
 * parse (their dates included) and the server turn into 16 MB of JSON again, on the event loop.
 * Keys and order are those of the document (server/commands/exportService.ts).
 */
export async function loadCatalogContentJson(db: Executor, tenantId: string, serviceId: string): Promise<CatalogContentJson> {
  // json_agg of a row writes it compactly, its columns' names as keys.
  const rows = await db.execute<CatalogContentJson>(sql`
    select
      (select coalesce(json_agg(x order by x.position, x.name, x.id), '[]')::text
       from (select ${categories.id} as id, ${categories.name} as name, ${categories.position} as position
             from ${categories}
             where ${categories.tenantId} = ${tenantId} and ${categories.serviceId} = ${serviceId}) x) as categories,
      (select coalesce(json_agg(x order by x.position, x.title, x.id), '[]')::text
       from (select ${aspects.id} as id, ${aspects.categoryId} as category_id, ${aspects.title} as title,
               ${aspects.description} as description, ${aspects.isPublic} as is_public, ${aspects.position} as position
             from ${aspects}
             where ${aspects.tenantId} = ${tenantId} and ${aspects.serviceId} = ${serviceId}) x) as aspects,
      (select coalesce(json_agg(x order by x.aspect_id, x.time_bucket), '[]')::text
       from (select ${availabilities.aspectId} as aspect_id, ${availabilities.timeBucket} as time_bucket, ${availabilities.value} as value
             from ${availabilities}
             where ${availabilities.tenantId} = ${tenantId} and ${availabilities.serviceId} = ${serviceId}) x) as availabilities,
      (select coalesce(json_agg(json_build_object('role_name', ${actorRoles.roleName}, 'position', ${actorRoles.position})
        order by ${actorRoles.position}, ${actorRoles.id}), '[]')::text
       from ${actorRoles}
       where ${actorRoles.tenantId} = ${tenantId} and ${actorRoles.serviceId} = ${serviceId}) as roles,
      (select coalesce(json_agg(json_build_object('template_text', ${quickTemplates.templateText}, 'position', ${quickTemplates.position})
        order by ${quickTemplates.position}, ${quickTemplates.id}), '[]')::text
       from ${quickTemplates}
       where ${quickTemplates.tenantId} = ${tenantId} and ${quickTemplates.serviceId} = ${serviceId}) as templates`);
  return (rows as unknown as { rows: CatalogContentJson[] }).rows[0]!;
}
