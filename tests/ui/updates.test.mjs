// Settings › About: "Check for updates" says whether a newer Hearth is
// offered (or why this copy cannot update itself), shows its notes as text
// (they come from a server), and "Install and restart" shows the download,
// the install and the restart; a failure is said and the buttons work
// again. The mock's updater is mock/updates.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, setup } from './harness.mjs';

const withApp = setup({ before, after });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const NOTES = 'Faster search.\nProjects keep their folders.\n<img src=x onerror=alert(1)>';
const offer = { state: 'available', current: '0.1.0', version: '0.2.0', notes: NOTES, date: '2026-03-14T09:30:00Z' };

/** Opens Settings with the mock's updater set up (`set`: its fields) and presses Check. */
async function check(page, set) {
  await page.evaluate((s) => Object.assign(window.__hearthMock.updates, s), set);
  await page.getByTestId('open-settings').click();
  await page.getByTestId('update-check').click();
}

const status = (page, text) => page.getByTestId('update-status').filter({ hasText: text }).waitFor();
const progress = (page, text) => page.getByTestId('update-progress').filter({ hasText: text }).waitFor();
const disabled = (page) => Promise.all(['update-check', 'update-install'].map((id) => page.getByTestId(id).isDisabled()));

test('updates: checking says so, then that this is the newest version, politely, and again on a second check', () =>
  withApp('', async ({ page }) => {
    // The check is held until the page has been read while it runs.
    await check(page, { hold: 'checking' });
    const button = page.getByTestId('update-check');
    assert.equal(await button.textContent(), 'Checking…');
    assert.equal(await button.isDisabled(), true);
    await page.evaluate(() => (window.__hearthMock.updates.hold = null));
    await status(page, 'Hearth 0.1.0 is the newest version.');
    assert.equal(await button.textContent(), 'Check for updates');
    assert.equal(await button.isDisabled(), false);
    assert.equal(await page.getByTestId('update-status').getAttribute('aria-live'), 'polite');
    assert.equal(await page.getByTestId('update-progress').getAttribute('aria-live'), 'polite');
    assert.equal(await page.getByTestId('update-install').count(), 0);
    // Checking again: the old answer goes until the new one comes (said again,
    // not left stale). Held while read: the mock's answer came before a loaded
    // machine read the status (CI, 2026-12-08).
    await page.evaluate(() => (window.__hearthMock.updates.hold = 'checking'));
    await button.click();
    await page.getByTestId('update-check').filter({ hasText: 'Checking…' }).waitFor();
    assert.equal(await page.getByTestId('update-status').textContent(), '');
    await page.evaluate(() => (window.__hearthMock.updates.hold = null));
    await status(page, 'Hearth 0.1.0 is the newest version.');
    assert.equal((await calls(page, 'check_update')).length, 2);
  }));

test('updates: an offer shows its version, date and notes as text (markup and all), and nothing serious to axe', () =>
  withApp('', async ({ page }) => {
    await check(page, { check: offer });
    await status(page, 'Hearth 0.2.0 is available (you have 0.1.0). Published ');
    assert.match(await page.getByTestId('update-status').textContent(), /Published .*2026\.$/);
    const notes = page.getByTestId('update-notes');
    assert.equal(await notes.textContent(), NOTES);
    assert.equal(await notes.locator('*').count(), 0, 'no element made of the notes');
    assert.equal(await page.locator('img[src=x]').count(), 0);
    assert.equal(await notes.evaluate((n) => getComputedStyle(n).whiteSpace), 'pre-wrap');
    assert.equal(await notes.getAttribute('aria-label'), 'What Hearth 0.2.0 changes');
    assert.equal(await page.getByTestId('update-install').textContent(), 'Install and restart');
    await page.evaluate(axeSource);
    const r = await page.evaluate(() => window.axe.run(document.querySelector('[data-testid=updates]'), { resultTypes: ['violations'] }));
    assert.deepEqual(r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  }));

test('updates: installing shows the download, the install and the restart, and outlives the panel', () =>
  withApp('', async ({ page }) => {
    await check(page, { check: offer, hold: 'downloading' });
    await page.getByTestId('update-install').click();
    await progress(page, 'Downloading… 2.4 of 9.5 MB');
    assert.equal(await page.getByRole('progressbar', { name: 'Update download' }).getAttribute('aria-valuenow'), '25');
    assert.deepEqual(await disabled(page), [true, true]);
    assert.deepEqual((await calls(page, 'install_update')).map((c) => c.args.version), ['0.2.0']);
    await page.evaluate(() => (window.__hearthMock.updates.hold = 'installing'));
    await progress(page, 'Installing… (your system may ask for your password)');
    // Closed and opened again mid-install: still there, still not startable twice.
    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-settings').click();
    await progress(page, 'Installing…');
    assert.deepEqual(await disabled(page), [true, true]);
    await page.evaluate(() => (window.__hearthMock.updates.hold = null));
    await progress(page, 'Restarting…');
    assert.deepEqual(await disabled(page), [true, true]);
    assert.equal((await calls(page, 'install_update')).length, 1);
  }));

test('updates: a failed install says why in an alert; Install works again (the offer found again first)', () =>
  withApp('', async ({ page }) => {
    const why = "The update was not installed: its signature does not match Hearth's update key, so it was not installed. Hearth 0.1.0 keeps running.";
    await check(page, { check: offer, total: null, hold: 'downloading', installError: why });
    await page.getByTestId('update-install').click();
    // A size the server did not say: only what came so far.
    await progress(page, 'Downloading… 2.4 MB');
    assert.equal(await page.getByRole('progressbar').count(), 0);
    await page.evaluate(() => (window.__hearthMock.updates.hold = null));
    const alert = page.getByRole('alert').filter({ hasText: why });
    await alert.waitFor();
    assert.equal(await alert.getAttribute('data-testid'), 'update-error');
    assert.equal(await page.getByTestId('update-progress').textContent(), '');
    assert.deepEqual(await disabled(page), [false, false]);

    await page.evaluate(() => Object.assign(window.__hearthMock.updates, { installError: null, total: 10_000_000 }));
    await page.getByTestId('update-install').click();
    await progress(page, 'Restarting…');
    assert.equal(await page.getByTestId('update-error').count(), 0);
    assert.equal((await calls(page, 'check_update')).length, 2);
    assert.deepEqual((await calls(page, 'install_update')).map((c) => c.args.version), ['0.2.0', '0.2.0']);
  }));

test('updates: a copy that cannot update itself says why, with nothing to install; a failed check is said', () =>
  withApp('update=unavailable', async ({ page }) => {
    await check(page, {});
    await status(page, 'This build of Hearth has no update key, so it does not update itself: update it the way you installed it.');
    assert.equal(await page.getByTestId('update-install').count(), 0);
    assert.equal(await page.getByTestId('update-notes').count(), 0);

    const why = 'Could not check for updates at https://updates.example/hearth.json: it did not answer in time.';
    await page.evaluate((w) => (window.__hearthMock.updates.checkError = w), why);
    await page.getByTestId('update-check').click();
    await page.getByRole('alert').filter({ hasText: why }).waitFor();
    assert.equal(await page.getByTestId('update-status').textContent(), '');
    assert.equal(await page.getByTestId('update-check').isDisabled(), false);
  }));
