import type { Locator, Page } from '@playwright/test';
import { test, expect, ADMIN, signIn } from './fixtures';
import { adminApi, seedService, unique } from './catalogHelpers';

/** The field and a margin around it, where a focus ring is drawn. */
async function shot(page: Page, field: Locator): Promise<string> {
  const b = (await field.boundingBox())!;
  const clip = { x: b.x - 6, y: b.y - 6, width: b.width + 12, height: b.height + 12 };
  return (await page.screenshot({ clip, caret: 'hide', animations: 'disabled' })).toString('base64');
}

/** How many pixels differ between two screenshots of the same size, decoded by the browser. */
function differingPixels(page: Page, a: string, b: string): Promise<number> {
  return page.evaluate(
    async ([x, y]) => {
      const pixels = async (png: string) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(bitmap, 0, 0);
        return ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
      };
      const [p, q] = [await pixels(x!), await pixels(y!)];
      let count = 0;
      for (let i = 0; i < p.length; i += 4) {
        if (Math.abs(p[i]! - q[i]!) + Math.abs(p[i + 1]! - q[i + 1]!) + Math.abs(p[i + 2]! - q[i + 2]!) > 60) count++;
      }
      return count;
    },
    [a, b],
  );
}

/**
 * The field focused by the keyboard and the same field unfocused differ by a visible ring: at
 * least one pixel-wide line around it (half its perimeter), not a caret or a shade.
 */
async function expectVisibleFocus(page: Page, field: Locator, blur: () => Promise<void>) {
  await expect(field).toBeFocused();
  const focused = await shot(page, field);
  await blur();
  await expect(field).not.toBeFocused();
  const unfocused = await shot(page, field);
  const b = (await field.boundingBox())!;
  expect(await differingPixels(page, focused, unfocused)).toBeGreaterThan(b.width + b.height);
}

test.describe('Keyboard focus is visible on every field', () => {
  test('an invalid field in Create Service shows a focus ring, as a valid one does', async ({ page }) => {
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('button', { name: '+ New Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    const name = dialog.getByRole('textbox', { name: 'Name', exact: true });
    const slug = dialog.getByRole('textbox', { name: 'Slug', exact: true });
    const description = dialog.getByRole('textbox', { name: 'Description', exact: true });
    // A Tab round without typing: Name and Slug turn red.
    await expect(name).toBeFocused();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(slug).toHaveAttribute('aria-invalid', 'true');
    await expect(description).toBeFocused();

    await page.keyboard.press('Shift+Tab');
    await expectVisibleFocus(page, slug, () => page.keyboard.press('Shift+Tab'));
    await expectVisibleFocus(page, name, () => page.keyboard.press('Tab'));
    // A valid field too.
    await page.keyboard.press('Tab');
    await expectVisibleFocus(page, description, () => page.keyboard.press('Tab'));
  });

  test('a read-only field (Service Details slug) shows a focus ring', async ({ page, request }) => {
    const api = await adminApi(request);
    const { serviceId } = await seedService(api, `Focus ${unique()}`, []);
    await signIn(page, ADMIN.email, ADMIN.password, `/catalog/${serviceId}/settings`);
    const slug = page.getByRole('main').getByRole('textbox', { name: 'Slug', exact: true });
    await slug.focus();
    await expectVisibleFocus(page, slug, () => page.keyboard.press('Tab'));
  });
});
