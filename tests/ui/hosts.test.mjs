// Hosts: more machines beside the default Ollama. Added and removed in
// Settings with whether each answers; the picker lists their models and
// moves the session; a profile names its host and its failover hosts; an
// answer from a failover host says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

async function addHost(page, name, url) {
  await page.getByTestId('host-name').fill(name);
  await page.getByTestId('host-url').fill(url);
  await page.getByTestId('host-add').locator('button[type=submit]').click();
}

test('settings: hosts are listed with their state, added (checked at once) and removed after a confirm', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const list = page.getByTestId('host-list');
    await list.locator('[data-host=ollama]').waitFor();
    assert.match(await list.locator('[data-host=ollama]').getByTestId('host-state').textContent(), /Up \(version 0\.32\.15\) · 2 models/);
    // The OpenAI-compatible server nobody set up is not listed as a host
    // that is down (defect 15); once its URL is chosen, it is.
    assert.equal(await list.locator('[data-host=openai]').count(), 0);
    const openaiUrl = page.getByTestId('settings-openai-url');
    await openaiUrl.fill('http://127.0.0.1:8081');
    await openaiUrl.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'set_openai_url'));
    await page.getByTestId('hosts-refresh').click();
    await list.locator('[data-host=openai]').waitFor();
    assert.match(await list.locator('[data-host=openai]').getByTestId('host-state').textContent(), /Not reachable/);
    // The settings' servers cannot be removed here.
    assert.equal(await list.locator('[data-host=ollama]').getByTestId('host-remove').count(), 0);

    // Each field of the add row is labelled, and they line up (defect 16).
    for (const [label, testid] of [['Name', 'host-name'], ['Kind', 'host-kind'], ['Address', 'host-url'], ['API key', 'host-key']]) {
      assert.equal(await page.getByTestId('host-add').getByLabel(label, { exact: true }).getAttribute('data-testid'), testid);
    }
    const heights = await page.getByTestId('host-add').locator('input, select').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().height)));
    assert.equal(new Set(heights).size, 1, `one height: ${heights}`);
    assert.match(await page.getByTestId('openai-hint').textContent(), /host named openai.*under Hosts/);
    await addHost(page, 'gpu2', 'http://10.0.0.2:11434');
    await list.locator('[data-host=gpu2]').waitFor();
    assert.match(await list.locator('[data-host=gpu2]').getByTestId('host-state').textContent(), /Up \(version 0\.32\.15\) · 2 models/);
    await addHost(page, 'attic', 'http://10.0.0.9:1');
    await page.getByTestId('toast-text').filter({ hasText: 'Added attic, but it does not answer now.' }).waitFor();
    assert.match(await list.locator('[data-host=attic]').getByTestId('host-state').textContent(), /Not reachable: .*connection refused/);

    // A reserved name or a URL that is not http is refused, with the reason.
    await addHost(page, 'ollama', 'http://x:1');
    await page.getByTestId('toast-text').filter({ hasText: 'is the name of the server in the settings' }).waitFor();
    await addHost(page, 'nas', 'file:///etc/passwd');
    await page.getByTestId('toast-text').filter({ hasText: 'is not an http:// or https:// URL' }).waitFor();

    await list.locator('[data-host=attic]').getByTestId('host-remove').click();
    await list.getByTestId('host-remove-confirm').waitFor();
    assert.equal((await calls(page, 'remove_host')).length, 0, 'asks first');
    await list.getByTestId('host-remove-yes').click();
    await list.locator('[data-host=attic]').waitFor({ state: 'detached' });
    assert.deepEqual((await calls(page, 'remove_host')).map((c) => c.args.name), ['attic']);
    // Every host, with its models, in the models panel too.
    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-models').click();
    const seen = page.getByTestId('models-hosts');
    await seen.locator('[data-host=gpu2]').getByTestId('host-models').waitFor();
    assert.equal(await seen.locator('[data-host=gpu2]').getByTestId('host-models').textContent(), 'gemma3:12b, qwen3:32b');
  }));

test("an OpenAI-compatible host's API key goes to the shell once and is only noted after; Ollama takes none", () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const list = page.getByTestId('host-list');
    await list.locator('[data-host=ollama]').waitFor();
    assert.equal(await page.getByTestId('host-key').isDisabled(), true, 'no key for Ollama');
    await page.getByTestId('host-kind').selectOption('openai');
    await page.getByTestId('host-key').fill('sk-box-secret');
    await addHost(page, 'box', 'http://box:8080/v1');
    await list.locator('[data-host=box]').getByTestId('host-keyed').waitFor();
    assert.match(await list.locator('[data-host=box]').textContent(), /OpenAI-compatible · http:\/\/box:8080\/v1 · API key in the secret store/);
    assert.deepEqual((await calls(page, 'add_host')).map((c) => c.args.apiKey), ['sk-box-secret']);
    // The field is emptied; the page never shows the key again.
    assert.equal(await page.getByTestId('host-key').inputValue(), '');
    assert.equal(await page.evaluate(() => document.body.innerHTML.includes('sk-box-secret')), false);
    // A new URL without a key keeps the one it has.
    await addHost(page, 'box', 'http://box2:8080/v1');
    await list.locator('[data-host=box]').filter({ hasText: 'box2' }).getByTestId('host-keyed').waitFor();
    assert.equal((await calls(page, 'add_host')).at(-1).args.apiKey, null);
    // A host with no key says nothing about one.
    await page.getByTestId('host-kind').selectOption('ollama');
    await addHost(page, 'gpu2', 'http://10.0.0.2:11434');
    await list.locator('[data-host=gpu2]').waitFor();
    assert.equal(await list.locator('[data-host=gpu2]').getByTestId('host-keyed').count(), 0);
  }));

test("the picker lists another host's models and moves the session there; it stays there", () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    await addHost(page, 'gpu2', 'http://10.0.0.2:11434');
    await page.getByTestId('host-list').locator('[data-host=gpu2]').waitFor();
    await page.getByTestId('panel-close').click();

    await page.getByTestId('model-picker').click();
    const menu = page.getByTestId('model-menu');
    await menu.locator('[data-testid=model-host][data-host=gpu2]').waitFor();
    // The settings' OpenAI-compatible server does not answer: not offered.
    assert.equal(await menu.locator('[data-testid=model-host][data-host=openai]').count(), 0);
    await menu.locator('[data-testid=model-option][data-host=gpu2][data-model="gemma3:12b"]').click();
    assert.equal(await page.getByTestId('current-model').textContent(), 'gemma3:12b');
    assert.equal(await page.getByTestId('current-host').textContent(), ' on gpu2');
    const moved = (await calls(page, 'set_session_host')).at(-1).args;
    assert.deepEqual([moved.host, moved.model], ['gpu2', 'gemma3:12b']);

    // Opened again, the session is still there.
    const id = await page.locator('[data-testid=session-item].current').getAttribute('data-session-id');
    await page.getByTestId('new-session').click();
    assert.equal(await page.getByTestId('current-host').count(), 0);
    await page.locator(`[data-testid=session-item][data-session-id="${id}"]`).getByTestId('session-open').click();
    await page.getByTestId('current-host').waitFor();
    assert.equal(await page.getByTestId('current-model').textContent(), 'gemma3:12b');

    // Back to a model of the default Ollama: the session moves home.
    await page.getByTestId('model-picker').click();
    await menu.locator('[data-testid=model-option][data-model="llama3.2:3b"]').first().click();
    assert.equal(await page.getByTestId('current-host').count(), 0);
    const home = (await calls(page, 'set_session_host')).at(-1).args;
    assert.deepEqual([home.host, home.model], ['ollama', 'llama3.2:3b']);
  }));

test("the palette and /model know every host's models; the palette sets the theme (defect 32)", () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    await addHost(page, 'gpu2', 'http://10.0.0.2:11434');
    await page.getByTestId('host-list').locator('[data-host=gpu2]').waitFor();
    await page.getByTestId('panel-close').click();
    await page.getByTestId('composer-input').focus();

    const palette = page.getByTestId('palette');
    await page.keyboard.press('Control+k');
    await palette.waitFor();
    const onGpu2 = palette.locator('[data-testid=palette-item][data-action="model-gemma3:12b@gpu2"]');
    await onGpu2.waitFor();
    assert.match(await onGpu2.innerText(), /Use gemma3:12b on gpu2 in this chat/);
    await page.keyboard.type('gemma3 gpu2');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=palette-item]').length === 1);
    await page.keyboard.press('Enter');
    await page.getByTestId('current-host').filter({ hasText: 'on gpu2' }).waitFor();
    const moved = (await calls(page, 'set_session_host')).at(-1).args;
    assert.deepEqual([moved.host, moved.model], ['gpu2', 'gemma3:12b']);

    // `/model` completes another host's model as NAME@HOST and moves there.
    const input = page.getByTestId('composer-input');
    await input.fill('/model qwen3:32b@gp');
    await page.getByTestId('slash-item').filter({ hasText: 'qwen3:32b@gpu2' }).waitFor();
    await input.fill('/model qwen3:32b@gpu2');
    await input.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.filter((c) => c.cmd === 'set_session_host').length === 2);
    const typed = (await calls(page, 'set_session_host')).at(-1).args;
    assert.deepEqual([typed.host, typed.model], ['gpu2', 'qwen3:32b']);
    assert.equal(await page.getByTestId('current-model').textContent(), 'qwen3:32b');
    // A model of the default server brings the chat home, not onto gpu2.
    await input.fill('/model llama3.2:3b');
    await input.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.filter((c) => c.cmd === 'set_session_host').length === 3);
    const home = (await calls(page, 'set_session_host')).at(-1).args;
    assert.deepEqual([home.host, home.model], ['ollama', 'llama3.2:3b']);
    await page.getByTestId('current-host').waitFor({ state: 'detached' });

    // The theme, from the palette.
    await page.keyboard.press('Control+k');
    await palette.waitFor();
    await page.keyboard.type('dark theme');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=palette-item]').length === 1);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.documentElement.dataset.themePref === 'dark' && document.documentElement.dataset.theme === 'dark');
    assert.equal((await calls(page, 'set_prefs')).at(-1).args.prefs.theme, 'dark');
  }));

test('a profile names its host and its failover hosts', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    await addHost(page, 'gpu2', 'http://10.0.0.2:11434');
    await page.getByTestId('host-list').locator('[data-host=gpu2]').waitFor();
    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-profiles').click();
    await page.getByTestId('profile-edit').first().click();
    await page.getByTestId('profile-host').locator('option[value=gpu2]').waitFor({ state: 'attached' });
    await page.getByTestId('profile-host').selectOption('gpu2');
    // Its own host is never its failover.
    assert.equal(await page.locator('[data-testid=failover-choice][data-host=gpu2]').count(), 0);
    await page.locator('[data-testid=failover-choice][data-host=ollama]').check();
    await page.getByTestId('profile-save').click();
    const saved = (await calls(page, 'save_profile')).at(-1).args.profile;
    assert.equal(saved.backend, 'gpu2');
    assert.deepEqual(saved.failover, ['ollama']);
  }));

test('an answer a failover host gave says which host could not be reached and why, live and after', () =>
  withApp('', async ({ page }) => {
    await send(page, 'host down');
    const live = page.getByTestId('host-failover');
    await live.waitFor();
    assert.match(await live.textContent(), /gpu1 could not be reached, so gpu2 answered: .*connection refused/);
    await waitIdle(page);
    assert.match(await page.getByTestId('message-assistant').last().textContent(), /Answered by the spare machine\./);
    assert.equal(await page.getByTestId('host-failover').count(), 1);
  }));
