// The keyboard: shortcuts for new chat, search, sidebar, settings, the
// model and profile menus; the command palette (Ctrl+K) lists every action
// with its shortcut; panels take the focus and give it back, and close on
// Esc; menus close on Esc and an outside click, the focus back on their
// button.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, setup } from './harness.mjs';

const withApp = setup({ before, after });

const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
// The palette takes the focus once it is open: a key typed before that goes
// elsewhere, so each test waits for it (on a loaded machine it takes a while).
const openPalette = async (page) => {
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette').waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'palette-input');
};
const composerFocused = (page) => page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');

test('Ctrl+K lists every action with its shortcut, finds by typing, runs with Enter; the panel it opens takes the focus and gives it back', () =>
  withApp('', async ({ page }) => {
    await composerFocused(page);
    await openPalette(page);
    const palette = page.getByTestId('palette');
    const items = palette.getByTestId('palette-item');
    const ids = await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-action')));
    for (const id of ['new-chat', 'search', 'sidebar', 'model-picker', 'profile-picker', 'panel-settings', 'panel-models', 'panel-memory', 'export-md', 'profile-Agent', 'model-llama3.2:3b']) {
      assert.ok(ids.includes(id), `${id} is listed: ${ids}`);
    }
    assert.match(await palette.locator('[data-action=new-chat]').innerText(), /New chat\s+Ctrl\+N/);

    await page.keyboard.type('settings');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=palette-item]').length === 1);
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    const panel = page.getByTestId('panel-settings');
    await panel.waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'panel-settings');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await composerFocused(page);

    // Nothing found says so; Esc closes the palette and the focus comes back.
    await openPalette(page);
    await page.keyboard.type('zzzz');
    await page.getByTestId('palette-empty').waitFor();
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    await composerFocused(page);

    // An action with arguments of its own: the arrows choose, Enter runs.
    await openPalette(page);
    await page.keyboard.type('profile agent');
    await page.waitForFunction(() => document.querySelector('[data-testid=palette-item]')?.getAttribute('data-action') === 'profile-Agent');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.getByTestId('current-profile').filter({ hasText: 'Agent' }).waitFor();
  }));

test('the shortcuts: new chat, search, sidebar, settings, the model and profile menus', () =>
  withApp('', async ({ page }) => {
    await composerFocused(page);
    const before = (await calls(page, 'new_session')).length;
    await page.keyboard.press('Control+n');
    await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'new_session').length === n + 1, before);
    await composerFocused(page);

    await page.keyboard.press('Control+Shift+F');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search-input');

    await page.keyboard.press('Control+b');
    await page.getByTestId('search-input').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+Shift+F');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search-input');

    await page.keyboard.press('Control+,');
    await page.getByTestId('panel-settings').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('panel-settings').waitFor({ state: 'detached' });

    // The model menu: opened by its shortcut, closed by Esc, the focus on its button.
    await page.keyboard.press('Control+Shift+M');
    const models = page.getByTestId('model-menu');
    await models.waitFor();
    await page.keyboard.press('Escape');
    await models.waitFor({ state: 'detached' });
    assert.equal(await focused(page), 'model-picker');

    // The profile menu: arrows and Enter pick; an outside click closes it.
    await page.keyboard.press('Control+Shift+P');
    const profiles = page.getByTestId('profile-menu');
    await profiles.waitFor();
    await page.mouse.click(600, 400);
    await profiles.waitFor({ state: 'detached' });
    await page.getByTestId('profile-switcher').click();
    await profiles.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('current-profile').filter({ hasText: 'Agent' }).waitFor();
    assert.equal(await focused(page), 'profile-switcher');
  }));
