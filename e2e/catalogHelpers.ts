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
