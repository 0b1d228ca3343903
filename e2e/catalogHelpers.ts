import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, ADMIN, FIRST_TENANT, apiAs, loginThroughPage } from './fixtures';

/** Seeding and lookups shared by the catalog journeys. */
export const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

export type Api = Awaited<ReturnType<typeof apiAs>>;

export interface Seeded {
  serviceId: string;
  categoryId: string;
  aspectIds: string[];
}

/** A service with one category holding the given aspects (title, public?), seeded through the API. */
export async function seedService(api: Api, name: string, aspects: { title: string; isPublic?: boolean; description?: string }[]): Promise<Seeded> {
  const { service } = await api.send('POST', '/services', { name, slug: `svc-${unique()}` });
  const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: `Group of ${name}`, position: 0 });
  const aspectIds: string[] = [];
  for (const a of aspects) {
    const { aspect } = await api.send('POST', '/aspects', {
      serviceId: service.id,
      categoryId: category.id,
      title: a.title,
      description: a.description ?? `<p>About ${a.title}</p>`,
      isPublic: a.isPublic ?? true,
    });
    aspectIds.push(aspect.id);
  }
  return { serviceId: service.id, categoryId: category.id, aspectIds };
}

export async function adminApi(request: APIRequestContext) {
  return apiAs(request, ADMIN.email, ADMIN.password);
}

export async function openCatalog(page: Page, serviceId: string, email = ADMIN.email, password = ADMIN.password) {
  await loginThroughPage(page, email, password);
  await expect(page.getByRole('heading', { level: 1, name: FIRST_TENANT.name })).toBeVisible();
  await page.goto(`/catalog/${serviceId}`);
  await expect(page.getByTestId('roadmap-table')).toBeVisible();
}

export function rowTitles(page: Page): Promise<string[]> {
  return page.getByTestId('aspect-row').locator('th').evaluateAll((cells) => cells.map((c) => c.querySelector('.roadmap-title-button, .roadmap-title')?.textContent ?? ''));
}

export function row(page: Page, title: string): Locator {
  return page.getByTestId('aspect-row').filter({ has: page.getByText(title, { exact: true }) });
}

/**
 * Scrolls a table's panel from its top to its end and hands every aspect row to `visit` once, while
 * it is in view (rows far from the view are not in the page: the window puts them in as the panel
 * scrolls to them). Returns how many rows it visited.
 */
export async function visitEveryRow(page: Page, region: string, visit: (row: Locator) => Promise<void>): Promise<number> {
  const panel = page.getByRole('region', { name: region, exact: true });
  await panel.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  const inView = () =>
    panel.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const bottom = Math.min(box.bottom, innerHeight);
      const visible = (row: Element) => {
        const r = row.getBoundingClientRect();
        return r.bottom > box.top && r.top < bottom;
      };
      return {
        gaps: [...el.querySelectorAll('tr.roadmap-gap')].filter(visible).length,
        rows: [...el.querySelectorAll('tr[data-testid="aspect-row"], tr[data-testid="current-row"]')].filter(visible).map((row) => row.getAttribute('aria-rowindex')!),
        step: Math.max(80, Math.floor((bottom - box.top) * 0.6)),
        end: el.scrollHeight - el.clientHeight,
      };
    });
  const visited = new Set<string>();
  for (let top = 0; ; ) {
    await panel.evaluate((el, y) => (el.scrollTop = y), top);
    await expect.poll(async () => (await inView()).gaps).toBe(0);
    const { rows, step, end } = await inView();
    for (const index of rows.filter((i) => !visited.has(i))) {
      visited.add(index);
      await visit(panel.locator(`tr[aria-rowindex="${index}"]`));
    }
    if (top >= end) return visited.size;
    top = Math.min(end, top + step);
  }
}
