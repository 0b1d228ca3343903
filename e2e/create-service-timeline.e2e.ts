import { test, expect, ADMIN, expectAccessible, signIn } from './fixtures';
import { adminApi, unique } from './catalogHelpers';
import { addQuarters, defaultTimeline } from '../common/quarters';

test.describe('Create Service: the timeline', () => {
  test('the timeline starts at the current quarter and the seven after, and the chosen first and last quarter make the service', async ({ page, request }) => {
    const api = await adminApi(request);
    const start = defaultTimeline();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('button', { name: '+ New Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    const first = dialog.getByRole('combobox', { name: 'Timeline first quarter' });
    const last = dialog.getByRole('combobox', { name: 'Timeline last quarter' });
    await expect(first).toHaveValue(start[0]!);
    await expect(last).toHaveValue(start.at(-1)!);
    await expectAccessible(page, 'create service with its timeline');

    const name = `Timeline ${unique()}`;
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
    const chosenLast = addQuarters(start[0]!, 3);
    await last.click();
    await page.getByRole('option', { name: chosenLast, exact: true }).click();
    await expect(last).toHaveValue(chosenLast);
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(page).toHaveURL(/\/catalog\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').at(-1)!;
    const { service } = await api.send('GET', `/services/${id}`);
    expect(service.timeline).toEqual([start[0], addQuarters(start[0]!, 1), addQuarters(start[0]!, 2), chosenLast]);
  });
});
