// Memory and Models panels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, setup } from './harness.mjs';

const withApp = setup({ before, after });

test('memory: summary, provenance, history, add, edit, delete; summaries', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-memory').click();
    await page.getByTestId('memory-summary').filter({ hasText: 'prefers Rust' }).waitFor();
    const item = page.getByTestId('memory-item').first();
    assert.match(await item.getByTestId('memory-provenance').textContent(), /preference.*memory_worker.*in Welcome.*v2.*given to 3 sessions/s);
    assert.equal(await item.getByTestId('memory-quote').textContent(), 'you said: “I mostly write Rust”');
    // The summary is a list under its category's heading.
    assert.deepEqual(await page.getByTestId('memory-summary-heading').allTextContents(), ['Preferences']);
    assert.deepEqual(await page.getByTestId('memory-summary-item').allTextContents(), ['The user prefers Rust.']);
    await item.getByTestId('memory-history').click();
    await item.getByTestId('memory-history-list').filter({ hasText: 'likes Rust' }).waitFor();
    await page.getByTestId('memory-add-input').fill('Lives in Lyon.');
    await page.getByTestId('memory-add').click();
    await page.getByTestId('memory-content').filter({ hasText: 'Lives in Lyon.' }).waitFor();
    const added = page.getByTestId('memory-item').filter({ hasText: 'Lives in Lyon.' });
    await added.getByTestId('memory-edit').click();
    await page.getByTestId('memory-edit-input').fill('Lives in Paris.');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('memory-content').filter({ hasText: 'Lives in Paris.' }).waitFor();
    const paris = page.getByTestId('memory-item').filter({ hasText: 'Lives in Paris.' });
    await paris.getByTestId('memory-delete').click();
    assert.equal((await calls(page, 'delete_memory')).length, 0, 'nothing deleted before the confirmation');
    await paris.getByTestId('memory-delete-yes').click();
    await page.getByTestId('memory-item').filter({ hasText: 'Lives in Paris.' }).waitFor({ state: 'detached' });
    const summary = page.getByTestId('summary-item').first();
    assert.match(await summary.getByTestId('summary-provenance').textContent(), /Welcome.*message 2.*qwen3:8b/s);
    await summary.getByTestId('summary-edit').click();
    await summary.getByTestId('summary-edit-input').fill('Edited summary.');
    await summary.getByTestId('summary-save').click();
    await page.getByTestId('summary-content').filter({ hasText: 'Edited summary.' }).waitFor();
    await page.getByTestId('summary-delete').click();
    await page.getByTestId('summary-delete-yes').click();
    await page.getByTestId('summary-item').waitFor({ state: 'detached' });
  }));

test('models: list, resident refresh, settings warnings, preload, unload with confirm, pull progress', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-models').click();
    const qwen = page.locator('[data-testid=model-item][data-model="qwen3:8b"]');
    await qwen.waitFor();
    assert.deepEqual(await qwen.getByTestId('capability').allTextContents(), ['completion', 'tools', 'thinking']);
    // Evenly spaced facts, a " · " between each.
    assert.match((await qwen.getByTestId('model-facts').textContent()).trim(), /^[\d.]+ GB · 8\.2B · Q4_K_M · max ctx 40960 · ctx 8192 · keep \S.*$/);
    const running = page.locator('[data-testid=running-model][data-model="qwen3:8b"]');
    assert.match(await running.getByTestId('gpu-split').textContent(), /25% CPU \/ 75% GPU/);
    // Resident models are re-read every 2 s while the panel is open.
    await page.evaluate(() => {
      const m = window.__hearthMock;
      m.running = [...m.running, { name: 'llama3.2:3b', size: 2e9, size_vram: 2e9, context_length: 4096, expires_at: null }];
    });
    await page.locator('[data-testid=running-model][data-model="llama3.2:3b"]').waitFor({ timeout: 5000 });

    await qwen.getByTestId('model-settings-toggle').click();
    await qwen.getByTestId('num-ctx').fill('65536');
    await qwen.getByTestId('settings-warning').filter({ hasText: 'more than qwen3:8b supports' }).waitFor();
    await qwen.getByTestId('settings-warning').filter({ hasText: 'reloads' }).waitFor();
    await qwen.getByTestId('num-ctx').fill('8192');
    await qwen.getByTestId('keep-alive').fill('30');
    await qwen.getByTestId('settings-warning').filter({ hasText: 'under a minute' }).waitFor();
    await qwen.getByTestId('model-settings-save').click();
    assert.deepEqual((await calls(page, 'set_model_settings'))[0].args, { model: 'qwen3:8b', numCtx: 8192, keepAliveSecs: 30 });

    const llama = page.locator('[data-testid=running-model][data-model="llama3.2:3b"]');
    await llama.getByTestId('unload-button').click();
    assert.equal((await calls(page, 'unload_model')).length, 0);
    await llama.getByTestId('unload-yes').click();
    await llama.waitFor({ state: 'detached' });
    assert.deepEqual((await calls(page, 'unload_model')).map((c) => c.args.model), ['llama3.2:3b']);
    // Preload says it is loading until the load ends, then that the model
    // is loaded (defect 13); a loaded model offers no Preload.
    const preload = page.locator('[data-testid=model-item][data-model="llama3.2:3b"]').getByTestId('preload-button');
    await page.evaluate(() => {
      const mock = window.__hearthMock;
      mock.preloadGate = new Promise((done) => (window.__loadDone = done));
    });
    await preload.click();
    await preload.and(page.locator('[data-state=loading]')).waitFor();
    assert.equal(await preload.textContent(), 'Loading…');
    assert.ok(await preload.isDisabled());
    await page.evaluate(() => {
      window.__hearthMock.preloadGate = null;
      window.__loadDone();
    });
    await page.locator('[data-testid=running-model][data-model="llama3.2:3b"]').waitFor();
    await preload.and(page.locator('[data-state=loaded]')).waitFor();
    assert.equal(await preload.textContent(), 'Loaded');
    assert.ok(await preload.isDisabled());

    await page.getByTestId('pull-name').fill('phi4:14b');
    // Every value the progress bar takes, recorded as the DOM changes.
    await page.evaluate(() => {
      window.__progress = [];
      const note = () => {
        const v = document.querySelector('[data-testid=pull-progress]')?.getAttribute('aria-valuenow');
        if (v != null && window.__progress.at(-1) !== v) window.__progress.push(v);
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
    });
    await page.getByTestId('pull-button').click();
    await page.getByTestId('pull-status').filter({ hasText: '%' }).waitFor();
    await page.locator('[data-testid=model-item][data-model="phi4:14b"]').waitFor();
    const seen = await page.evaluate(() => window.__progress);
    assert.ok(new Set(seen).size >= 2, `progress moved: ${seen}`);
  }));

test('settings: the OpenAI-compatible server is set from the app, resolved to its /v1', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const field = page.getByTestId('settings-openai-url');
    assert.equal(await field.inputValue(), 'http://127.0.0.1:8080/v1');
    await field.fill('http://192.168.1.20:1234');
    await field.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'set_openai_url'));
    assert.deepEqual((await calls(page, 'set_openai_url'))[0].args, { url: 'http://192.168.1.20:1234' });
    await page.waitForFunction(
      () => document.querySelector('[data-testid=settings-openai-url]').value === 'http://192.168.1.20:1234/v1',
    );
  }));

test('settings: desktop notifications are on until turned off, and the choice is saved whole', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const box = page.getByTestId('notify-pref');
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.waitForFunction(() => window.__hearthMock.prefs.notify === false);
    // The other preferences are saved with it, unchanged.
    const saved = (await calls(page, 'set_prefs')).at(-1).args.prefs;
    assert.deepEqual({ ...saved, last_session: null }, { theme: 'system', last_session: null, sidebar_open: true, voice_send: true, notify: false, html_preview: false });
    await box.check();
    await page.waitForFunction(() => window.__hearthMock.prefs.notify === true);
  }));

test('models: delete asks first, says what it costs, and the picker no longer offers the model', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-models').click();
    const llama = page.locator('[data-testid=model-item][data-model="llama3.2:3b"]');
    await llama.waitFor();
    await llama.getByTestId('delete-model-button').click();
    const confirm = llama.getByTestId('delete-model-confirm');
    assert.match(await confirm.textContent(), /Delete llama3\.2:3b from the server's disk \(1\.9 GB\)/);
    assert.equal((await calls(page, 'delete_model')).length, 0, 'nothing deleted before the confirmation');
    await llama.getByTestId('delete-model-yes').click();
    await llama.waitFor({ state: 'detached' });
    assert.deepEqual((await calls(page, 'delete_model')).map((c) => c.args.model), ['llama3.2:3b']);
    await page.getByTestId('toast-text').filter({ hasText: 'llama3.2:3b deleted from the server' }).waitFor();
    await page.getByTestId('panel-close').click();
    await page.getByTestId('model-picker').click();
    const offered = await page.getByTestId('model-option').evaluateAll((els) => els.map((e) => e.dataset.model));
    assert.deepEqual(offered, ['qwen3:8b']);
  }));

test('memory: a fact links to the session it was learned in', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('open-memory').click();
    const item = page.getByTestId('memory-item').first();
    await item.getByTestId('memory-session').click();
    await page.getByTestId('panel-memory').waitFor({ state: 'detached' });
    await page.getByTestId('session-title').filter({ hasText: 'Welcome' }).waitFor();
  }));

test('profiles: deleting the profile this session uses asks first, says where it goes, and the switcher follows', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('profile-switcher').click();
    await page.locator('[data-testid=profile-option][data-profile=Agent]').click();
    await page.getByTestId('current-profile').filter({ hasText: 'Agent' }).waitFor();
    await page.getByTestId('open-profiles').click();
    // The default profile's badge is as wide as its word, not the row (user pass 2026-12, defect 22).
    const badge = await page.getByTestId('profile-default-badge').boundingBox();
    const row = await page.locator('[data-testid=profile-item][data-profile=Chat]').boundingBox();
    assert.ok(badge.width < row.width / 3, `badge ${badge.width} px of a ${row.width} px row`);
    await page.locator('[data-testid=profile-item][data-profile=Agent]').getByTestId('profile-delete').click();
    const confirm = page.getByTestId('profile-delete-confirm');
    assert.match(await confirm.textContent(), /Delete profile Agent\? This session uses it: its next message goes to Chat\./);
    assert.equal((await calls(page, 'delete_profile')).length, 0);
    await confirm.getByTestId('profile-delete-yes').click();
    await page.locator('[data-testid=profile-item][data-profile=Agent]').waitFor({ state: 'detached' });
    await page.getByTestId('toast-text').filter({ hasText: 'This session now uses Chat.' }).waitFor();
    assert.equal(await page.getByTestId('current-profile').textContent(), 'Chat');
  }));
