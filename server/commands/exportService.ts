import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import { htmlToText } from '../../common/richText';
import type { Executor } from '../db';
import type { ServiceRow } from '../db/queries/services';
import { loadServiceContent } from '../db/queries/settings';
import { loadCatalogContentJson } from '../db/queries/catalogJson';

import { CATALOG_FORMAT, CATALOG_VERSION } from './catalogFile';

export { CATALOG_FORMAT, CATALOG_VERSION };

/** The .catalog document's head: everything but the content arrays, in the document's key order. */
function documentHead(service: ServiceRow) {
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
  };
}

/**
 * The .catalog document of one service, as JSON text: everything needed to recreate it elsewhere.
 * The content arrays come as JSON from the database, in one statement.
 */
export async function buildCatalogDocumentJson(db: Executor, service: ServiceRow): Promise<string> {
  const content = await loadCatalogContentJson(db, service.tenantId, service.id);
  const head = JSON.stringify(documentHead(service));
  return (
    `${head.slice(0, -1)},"categories":${content.categories},"aspects":${content.aspects},` +
    `"availabilities":${content.availabilities},"roles":${content.roles},"templates":${content.templates}}`
  );
}

const gzipAsync = promisify(gzip);

/** The .catalog file: the document as gzip, compressed off the main thread (a large service's takes a few hundred ms). */
export async function exportServiceFile(db: Executor, service: ServiceRow): Promise<Buffer> {
  return gzipAsync(Buffer.from(await buildCatalogDocumentJson(db, service), 'utf8'));
}

/** A cell a spreadsheet would read as a formula gets a leading single quote. */
export function neutraliseCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * The roadmap as CSV: Category, Aspect, Description (plain text), Public, then one column per
 * quarter. It starts with a UTF-8 byte order mark: without one, Excel opens the file in the
 * system's code page and shows "Sécurité" as "SÃ©curitÃ©" (docs/decisions/0142-csv-encodings.md).
 */
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
  return `\uFEFF${stringify(
    rows.map((r) => r.map(neutraliseCell)),
    { record_delimiter: '\r\n', quoted_match: /[",\r\n]/ },
  )}`;
}
