import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { getDocumentProxy } from 'unpdf';
import { ADMIN, apiAs, expect, FIRST_TENANT, test, signIn } from './fixtures';

/**
 * Printing (docs/decisions/0123-print.md): the catalog's roadmap and current views and the public
 * page are printed to PDF by Chromium, on landscape A4 and Letter, and the PDF's pages are read
 * back: every page repeats the header row, every aspect and every quarter is there, no app chrome,
 * and no page ends on a category heading.
 */
const CATEGORIES = 4;
const PER_CATEGORY = 25;
const uid = () => randomBytes(3).toString('hex');

interface Printed {
  pages: string[];
  sizes: { width: number; height: number }[];
}

async function printToPdf(page: Page, format: 'A4' | 'Letter'): Promise<Printed> {
  await page.emulateMedia({ media: 'print' });
  const pdf = await page.pdf({ format, landscape: true, printBackground: true });
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const sizes: Printed['sizes'] = [];
  const pages: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const sheet = await doc.getPage(i);
    const [, , width, height] = sheet.view as number[];
    sizes.push({ width: width!, height: height! });
    // The page's text as it is laid out, top to bottom and left to right (not in drawing order).
    const items = ((await sheet.getTextContent()).items as { str?: string; transform?: number[] }[])
      .filter((item) => item.str?.trim() && item.transform)
      .map((item) => ({ str: item.str!, transform: item.transform! }));
    items.sort((a, b) => b.transform[5]! - a.transform[5]! || a.transform[4]! - b.transform[4]!);
    pages.push(items.map((item) => item.str).join('\n'));
  }
  await page.emulateMedia({ media: 'screen' });
  return { pages, sizes };
}

/** `columns` must be on every page from the one that first shows `from` (the public page starts with the current quarter's table). */
function checkPrinted(printed: Printed, columns: string[], chrome: string[], what: string, from?: string) {
  const { pages, sizes } = printed;
  expect(pages.length, `${what}: pages`).toBeGreaterThan(1);
  for (const size of sizes) expect(size.width, `${what}: landscape`).toBeGreaterThan(size.height);
  const all = pages.join('\n');
  for (let c = 0; c < CATEGORIES; c++) {
    for (let i = 0; i < PER_CATEGORY; i++) expect(all, `${what}: every aspect printed`).toContain(`Aspect C${c}-${String(i).padStart(2, '0')}`);
  }
  const first = from ? pages.findIndex((text) => text.includes(from)) : 0;
  expect(first, `${what}: ${from} printed`).toBeGreaterThanOrEqual(0);
  pages.forEach((text, n) => {
    expect(text, `${what}: page ${n + 1} repeats the header row`).toContain('Aspect');
    // The header row is repeated on every page, with every quarter.
    if (n >= first) for (const column of columns) expect(text, `${what}: page ${n + 1} repeats ${column}`).toContain(column);
    for (const word of chrome) expect(text, `${what}: page ${n + 1} shows no ${word}`).not.toContain(word);
    // The last category heading of a page has at least one of its aspects after it on that page.
    const headings = [...text.matchAll(/Category C(\d)/g)];
    const last = headings.at(-1);
    if (last) expect(text.slice(last.index! + last[0].length), `${what}: page ${n + 1} ends on a category heading`).toContain(`Aspect C${last[1]}-`);
  });
}

test('the roadmap and current views and the public page print cleanly on landscape A4 and Letter', async ({ page, request, baseURL }) => {
  test.setTimeout(180_000);
  const api = await apiAs(request, ADMIN.email, ADMIN.password, FIRST_TENANT.slug);
  const name = `Print ${uid()}`;
  const { service } = await api.send('POST', '/services', { name, slug: name.toLowerCase().replace(/\s+/g, '-') });
  const timeline: string[] = service.timeline;
  for (let c = 0; c < CATEGORIES; c++) {
    const { category } = await api.send('POST', '/categories', { serviceId: service.id, name: `Category C${c}`, position: c });
    for (let i = 0; i < PER_CATEGORY; i += 5) {
      await Promise.all(
        [0, 1, 2, 3, 4].map(async (j) => {
          const title = `Aspect C${c}-${String(i + j).padStart(2, '0')}`;
          const { aspect } = await api.send('POST', '/aspects', {
            serviceId: service.id,
            categoryId: category.id,
            title,
            description: '<p>What this aspect offers, in a sentence or two that take some room on paper.</p>',
            isPublic: true,
          });
          for (const q of timeline) await api.send('POST', '/availabilities', { aspectId: aspect.id, timeBucket: q, value: `Ready ${q}` });
        }),
      );
    }
  }
  await api.send('POST', '/snapshots', { serviceId: service.id, label: 'Printed edition', visibility: 'public', note: '' });
  await api.send('PATCH', `/services/${service.id}/publish`);

  await signIn(page, ADMIN.email, ADMIN.password);
  const chrome = ['Log Out', 'Search aspects', '+ Category', 'Settings'];

  await page.goto(`/catalog/${service.id}`);
  await expect(page.getByTestId('roadmap-table')).toBeVisible();
  for (const format of ['A4', 'Letter'] as const) {
    checkPrinted(await printToPdf(page, format), ['Aspect', ...timeline], chrome, `roadmap on ${format}`);
  }

  await page.goto(`/catalog/${service.id}?view=current`);
  await expect(
    page
      .getByRole('region', { name: /current/i })
      .or(page.getByRole('table'))
      .first(),
  ).toBeVisible();
  checkPrinted(await printToPdf(page, 'A4'), ['Aspect'], chrome, 'current view on A4');

  await page.goto(`${baseURL}/p/${FIRST_TENANT.slug}/${service.slug}`);
  for (const format of ['A4', 'Letter'] as const) {
    checkPrinted(await printToPdf(page, format), timeline, ['Follow new editions', 'Editions'], `public page on ${format}`, 'Roadmap');
  }
});
