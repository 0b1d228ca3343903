import { expect, type Locator, type Page } from '@playwright/test';
import type { Api } from './catalogHelpers';

/** Lookups shared by the roadmap grid's browser tests. */

export const cellButton = (page: Page, title: string, quarter: string, value = '-') =>
  page.getByRole('button', { name: `${title}, ${quarter}: ${value}`, exact: true });
export const focusedCell = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.cell ?? null);
export const editor = (page: Page, title: string, quarter: string) => page.getByRole('textbox', { name: `${title}, ${quarter}` });

/** Each aspect's texts by quarter, by title, as the server holds them. */
export async function texts(api: Api, serviceId: string): Promise<Map<string, Record<string, string>>> {
  const full = await api.send('GET', `/services/${serviceId}/full`);
  return new Map(full.resolved_data.aspects.map((a: { title: string; availabilities: Record<string, string> }) => [a.title, a.availabilities]));
}

export async function timelineOf(api: Api, serviceId: string): Promise<string[]> {
  return (await api.send('GET', `/services/${serviceId}`)).service.timeline;
}

export async function expectFocus(page: Page, locator: Locator) {
  await expect(locator).toBeFocused();
}
