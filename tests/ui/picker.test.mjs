// The model picker: a session's model switched without touching its
// profile, shown on every answer, kept with the session.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('the picker switches the session model, every answer names its model, the profile is untouched', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'hello');
    await waitIdle(page);
    const first = page.getByTestId('message-assistant').last();
    assert.equal(await first.getByTestId('answer-model').textContent(), 'qwen3:8b');

    await page.getByTestId('model-picker').click();
    const menu = page.getByTestId('model-menu');
    await menu.waitFor();
    assert.match(await menu.getByTestId('model-host').textContent(), /Ollama · http:\/\/127\.0\.0\.1:11434/);
    const options = await menu.getByTestId('model-option').evaluateAll((els) => els.map((e) => [e.dataset.model, e.textContent.replace(/\s+/g, ' ').trim()]));
    assert.deepEqual(options.map(([m]) => m), ['qwen3:8b', 'llama3.2:3b']);
    assert.match(options[0][1], /tools.*thinking.*GB/);
    // The loaded qwen3:8b is partly on the CPU (the server's /api/ps says so).
    assert.match(await menu.locator('[data-model="qwen3:8b"]').getByTestId('model-residency').textContent(), /% on the CPU/);
    // Its 4.2 GB in VRAM is about what the server has: the 1.9 GB llama3.2:3b fits, no hint.
    assert.equal(await menu.getByTestId('model-fit').count(), 0);
    await menu.locator('[data-testid=model-option][data-model="llama3.2:3b"]').click();
    assert.equal(await page.getByTestId('current-model').textContent(), 'llama3.2:3b');
    await page.getByTestId('model-overridden').waitFor();

    await send(page, 'hello again');
    await waitIdle(page);
    const second = page.getByTestId('message-assistant').last();
    assert.equal(await second.getByTestId('answer-model').textContent(), 'llama3.2:3b');
    assert.equal(await page.getByTestId('message-assistant').first().getByTestId('answer-model').textContent(), 'qwen3:8b');
    const set = await calls(page, 'set_session_model');
    assert.equal(set.length, 1);
    assert.equal(set[0].args.model, 'llama3.2:3b');
    assert.equal((await calls(page, 'save_profile')).length, 0, 'the profile is not touched');

    // Kept with the session: opened again, it still says so, and the
    // stored answers still name their models.
    const id = await page.locator('[data-testid=session-item].current').getAttribute('data-session-id');
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Welcome' }).waitFor();
    assert.equal(await page.getByTestId('current-model').textContent(), 'qwen3:8b');
    await page.locator(`[data-testid=session-item][data-session-id="${id}"]`).getByTestId('session-open').click();
    await page.getByTestId('model-overridden').waitFor();
    assert.equal(await page.getByTestId('current-model').textContent(), 'llama3.2:3b');
    const models = await page.getByTestId('answer-model').allTextContents();
    assert.deepEqual(models.slice(-2), ['qwen3:8b', 'llama3.2:3b']);

    // Back to the profile's model.
    await page.getByTestId('model-picker').click();
    await page.getByTestId('model-option-profile').click();
    assert.equal(await page.getByTestId('current-model').textContent(), 'qwen3:8b');
    assert.equal(await page.getByTestId('model-overridden').count(), 0);
    assert.equal((await calls(page, 'set_session_model')).at(-1).args.model, null);
  }));

test('a model larger than the VRAM the server is known to have is said not to fit, before it is loaded', () =>
  withApp('', async ({ page }) => {
    // The loaded qwen3:8b spilled with 1.5 GB on the GPU: that is what the
    // server has, and the 1.9 GB llama3.2:3b would not fit.
    await page.evaluate(() => (window.__hearthMock.running[0].size_vram = 1_500_000_000));
    await page.getByTestId('model-picker').click();
    const menu = page.getByTestId('model-menu');
    await menu.waitFor();
    const fit = menu.locator('[data-model="llama3.2:3b"]').getByTestId('model-fit');
    assert.match(await fit.textContent(), /does not fit in this server's VRAM \(about 1\.4 GB\): part of it would run on the CPU/);
    // The loaded one says where it is instead.
    assert.equal(await menu.locator('[data-model="qwen3:8b"]').getByTestId('model-fit').count(), 0);
    assert.match(await menu.locator('[data-model="qwen3:8b"]').getByTestId('model-residency').textContent(), /7\d% on the CPU/);
  }));

test('a server without a GPU gets no fit hint on every model', () =>
  withApp('', async ({ page }) => {
    // Everything loaded runs on the CPU: nothing is known about a GPU.
    await page.evaluate(() => (window.__hearthMock.running[0].size_vram = 0));
    await page.getByTestId('model-picker').click();
    const menu = page.getByTestId('model-menu');
    await menu.locator('[data-model="llama3.2:3b"]').waitFor();
    const residency = await menu.locator('[data-model="qwen3:8b"]').getByTestId('model-residency').textContent();
    assert.match(residency, /100% on the CPU/);
    assert.doesNotMatch(residency, /VRAM/, 'no VRAM to not fit in');
    assert.equal(await menu.getByTestId('model-fit').count(), 0);
  }));
