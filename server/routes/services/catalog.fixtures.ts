import type { TestApp } from '../../test/app';
import { call } from '../../test/app';
import { createAspect, createCategory, createService, createWorld } from '../../test/factories';

/** Rich text with every kind of hostile content the sanitiser must remove. */
export const HOSTILE_HTML =
  '<p>Safe <strong>bold</strong></p><script>alert(1)</script><img src="x" onerror="alert(2)">' +
  '<a href="javascript:alert(3)" onclick="alert(4)">link</a><iframe src="https://evil.example"></iframe>';

export function isSanitised(html: string) {
  const lower = html.toLowerCase();
  return !lower.includes('<script') && !lower.includes('onerror') && !lower.includes('javascript:') && !lower.includes('onclick') && !lower.includes('<iframe');
}

/**
 * createWorld() plus a service with one category holding a public and a private aspect, an
 * archived service with the same, and a service of the other tenant.
 */
export async function createCatalogWorld(t: TestApp) {
  const world = await createWorld(t.app, t.db);
  const tenantId = world.tenant.id;
  const service = await createService(t.db, tenantId);
  const category = await createCategory(t.db, tenantId, service.id, 'Core Features', 0);
  const publicAspect = await createAspect(t.db, tenantId, service.id, category.id, { title: 'Public aspect', isPublic: true, position: 0 });
  const privateAspect = await createAspect(t.db, tenantId, service.id, category.id, { title: 'Private aspect', isPublic: false, position: 1 });
  const archived = await createService(t.db, tenantId, { archived: true });
  const archivedCategory = await createCategory(t.db, tenantId, archived.id, 'Archived category', 0);
  const archivedAspect = await createAspect(t.db, tenantId, archived.id, archivedCategory.id);
  const foreign = await createService(t.db, world.other.id);
  const foreignCategory = await createCategory(t.db, world.other.id, foreign.id, 'Foreign', 0);
  const foreignAspect = await createAspect(t.db, world.other.id, foreign.id, foreignCategory.id);
  return {
    ...world,
    service,
    category,
    publicAspect,
    privateAspect,
    archived,
    archivedCategory,
    archivedAspect,
    foreign,
    foreignCategory,
    foreignAspect,
  };
}
export type CatalogWorld = Awaited<ReturnType<typeof createCatalogWorld>>;

export type Who = keyof CatalogWorld['tokens'] | 'nobody';

/** Calls the API as one member of the world (or without a token). */
export function as(t: TestApp, w: CatalogWorld, who: Who) {
  const token = who === 'nobody' ? null : w.tokens[who];
  return (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) => call(t.app, method, url, { token, body });
}

/** The SQL statements the app sends while `run` runs, as their text. */
export async function statementsOf(t: TestApp, run: () => Promise<unknown>): Promise<string[]> {
  const session = (t.db as unknown as { session: { logger: { logQuery: (q: string, p: unknown[]) => void } } }).session;
  const original = session.logger;
  const texts: string[] = [];
  session.logger = { logQuery: (text) => void texts.push(text) };
  try {
    await run();
  } finally {
    session.logger = original;
  }
  return texts;
}

/** Counts the SQL statements the app sends while `run` runs. */
export async function countStatements(t: TestApp, run: () => Promise<unknown>): Promise<number> {
  return (await statementsOf(t, run)).length;
}
