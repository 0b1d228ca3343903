import { test, expect, expectAccessible } from './fixtures';
import { adminApi, openCatalog, seedService, unique } from './catalogHelpers';
import { timelineOf } from './gridHelpers';

test.describe('Comparing from the roadmap', () => {
  test('"Compare with last snapshot" on the roadmap shows what changed since the newest snapshot', async ({ page, request }) => {
    test.setTimeout(60_000);
    const api = await adminApi(request);
    const { serviceId, aspectIds } = await seedService(api, `Compare ${unique()}`, [{ title: 'Mailbox' }]);
    const q = await timelineOf(api, serviceId);
    await api.send('POST', '/snapshots', { serviceId, label: 'Older', visibility: 'internal', note: '' });
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: q[0], value: 'Beta' });
    await api.send('POST', '/snapshots', { serviceId, label: 'Board review', visibility: 'internal', note: '' });
    await api.send('POST', '/availabilities', { aspectId: aspectIds[0], timeBucket: q[0], value: 'Generally available' });
    await openCatalog(page, serviceId);

    await page.getByRole('link', { name: 'Compare with last snapshot' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compare snapshots' });
    await expect(dialog.getByText('1 availability changed', { exact: true })).toBeVisible();
    await expect(dialog.getByRole('table', { name: 'Changed cells' }).getByRole('row', { name: /Mailbox .*Beta Generally available/ })).toBeVisible();
    await expectAccessible(page, 'comparison opened from the roadmap');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(new RegExp(`/catalog/${serviceId}/settings$`));
  });
});
