import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';

const shown = (page: Page) => page.locator('.mantine-Notification-root');

/** The controls, toolbars and the roadmap under the shown notification (none is the answer wanted). */
function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const note = document.querySelector('.mantine-Notification-root')!.getBoundingClientRect();
    const controls = document.querySelectorAll<HTMLElement>(
      'button, a, input, select, textarea, [role="switch"], [role="tab"], [role="textbox"], .roadmap-table, .roadmap-quarter-bar, [data-testid="grid-status"]',
    );
    return [...controls]
      .filter((el) => !el.closest('.mantine-Notifications-root'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.left < note.right && r.right > note.left && r.top < note.bottom && r.bottom > note.top;
      })
      .map((el) => `${el.tagName.toLowerCase()} ${el.textContent?.trim().slice(0, 40) ?? ''}`);
  });
}

test.describe('Notifications stay out of the way', () => {
  test.describe.configure({ timeout: 45_000 });

  for (const width of [1280, 1440]) {
    test(`at ${width} px, messages in a row show one at a time, over no control, toolbar or the roadmap`, async ({ page, request }) => {
      await page.setViewportSize({ width, height: 900 });
      const api = await adminApi(request);
      const { serviceId } = await seedService(api, `Messages ${unique()}`, [{ title: 'Mailbox' }]);
      await openCatalog(page, serviceId);

      for (const name of ['Growth', 'Security']) {
        await page.getByRole('button', { name: '+ Category' }).click();
        const dialog = page.getByRole('dialog', { name: 'Create Category' });
        await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
        await dialog.getByRole('button', { name: 'Create Category' }).click();
        await expect(dialog).toBeHidden();
      }
      await page.getByRole('button', { name: '+ Aspect', exact: true }).click();
      const aspect = page.getByRole('dialog', { name: 'Create Aspect' });
      await aspect.getByRole('textbox', { name: 'Title', exact: true }).fill('Archive');
      await aspect.getByRole('combobox', { name: 'Category' }).click();
      await page.getByRole('option', { name: 'Security' }).click();
      await aspect.getByRole('button', { name: 'Create Aspect' }).click();
      await expect(aspect).toBeHidden();

      // The latest message alone.
      await expect(shown(page)).toHaveCount(1);
      await expect(shown(page)).toHaveText(/Aspect created\./);
      expect(await coveredControls(page)).toEqual([]);

      // It follows to the dashboard, and covers none of its controls either.
      await page.getByRole('link', { name: /Back/ }).click();
      await expect(page.getByRole('button', { name: '+ New Service' })).toBeVisible();
      await expect(shown(page)).toHaveCount(1);
      expect(await coveredControls(page)).toEqual([]);
      // It can be closed.
      await page.getByRole('button', { name: 'Close notification' }).click();
      await expect(shown(page)).toHaveCount(0);
    });
  }
});
