import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import { htmlToText } from '../../common/richText';
import type { Executor } from '../db';
import type { ServiceRow } from '../db/queries/services';
import { loadServiceContent } from '../db/queries/settings';

import { CATALOG_FORMAT, CATALOG_VERSION } from './catalogFile';

export { CATALOG_FORMAT, CATALOG_VERSION };

/** The .catalog document of one service: everything needed to recreate it elsewhere. */
export async function buildCatalogDocument(db: Executor, service: ServiceRow) {
  const content = await loadServiceContent(db, service.tenantId, service.id);
  return {
    format: CATALOG_FORMAT,
    version: CATALOG_VERSION,
    exported_at: new Date().toISOString(),
    service: {
      name: service.name,
      slug: service.slug,
      description: service.description,
      service_owner: service.serviceOwner,
      subscription_model: service.subscriptionModel,
      icon_url: service.iconUrl,
      timeline: service.timeline,
    },
    categories: content.categories.map((c) => ({ id: c.id, name: c.name, position: c.position })),
    aspects: content.aspects.map((a) => ({
      id: a.id,
      category_id: a.categoryId,
      title: a.title,
      description: a.description,
      is_public: a.isPublic,
      position: a.position,
    })),
    availabilities: content.availabilities.map((v) => ({ aspect_id: v.aspectId, time_bucket: v.timeBucket, value: v.value })),
    roles: content.roles.map((r) => ({ role_name: r.roleName, position: r.position })),
    templates: content.templates.map((t) => ({ template_text: t.templateText, position: t.position })),
  };
}

const gzipAsync = promisify(gzip);

/** The .catalog file: the document as gzip, compressed off the main thread (a large service's takes a few hundred ms). */
export async function exportServiceFile(db: Executor, service: ServiceRow): Promise<Buffer> {
  return gzipAsync(Buffer.from(JSON.stringify(await buildCatalogDocument(db, service)), 'utf8'));
}

/** A cell a spreadsheet would read as a formula gets a leading single quote. */
export function neutraliseCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** The roadmap as CSV: Category, Aspect, Description (plain text), Public, then one column per quarter. */
export async function exportServiceCsv(db: Executor, service: ServiceRow, opts: { showPrivate: boolean }): Promise<string> {
  const content = await loadServiceContent(db, service.tenantId, service.id);
  const values = new Map<string, string>();
  for (const v of content.availabilities) values.set(`${v.aspectId}|${v.timeBucket}`, v.value);
  const rows: string[][] = [['Category', 'Aspect', 'Description', 'Public', ...service.timeline]];
  for (const category of content.categories) {
    for (const aspect of content.aspects) {
      if (aspect.categoryId !== category.id || (!aspect.isPublic && !opts.showPrivate)) continue;
      rows.push([
        category.name,
        aspect.title,
        htmlToText(aspect.description),
        aspect.isPublic ? 'Yes' : 'No',
        ...service.timeline.map((q) => values.get(`${aspect.id}|${q}`) ?? ''),
      ]);
    }
  }
  return stringify(rows.map((r) => r.map(neutraliseCell)), { record_delimiter: '\r\n', quoted_match: /[",\r\n]/ });
}
