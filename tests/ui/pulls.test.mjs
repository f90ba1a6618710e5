// Pulls belong to the app, not to the panel: progress with speed and time
// left, shown in the header while the panel is closed, queued one after
// another, cancelled without touching the next.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, setup } from './harness.mjs';

const withApp = setup({ before, after });

test('a pull goes on with the panel closed, shows in the header, queues the next, and cancels', () =>
  withApp('', async ({ page }) => {
    await page.evaluate(() => { window.__hearthMock.pulls.held = true; });
    await page.getByTestId('open-models').click();
    await page.getByTestId('pull-name').fill('phi4:14b');
    await page.getByTestId('pull-button').click();
    const status = page.locator('[data-testid=pull][data-state=running]').getByTestId('pull-status');
    await status.getByTestId('pull-eta').waitFor();
    assert.match(await status.textContent(), /\d+% of 1\.9 GB · .*B\/s · .* left/);

    // Closed panel: the header still says how far it is.
    await page.getByTestId('panel-close').click();
    const chip = page.getByTestId('pull-chip');
    await chip.waitFor();
    assert.match(await chip.textContent(), /phi4:14b \d+%/);

    // A second pull waits for the first.
    await chip.click();
    await page.getByTestId('pull-name').fill('gemma3:4b');
    await page.getByTestId('pull-button').click();
    await page.locator('[data-testid=pull][data-state=queued]').waitFor();
    await page.getByTestId('pull-chip-queued').filter({ hasText: '+1 queued' }).waitFor();

    // Cancel the first: the second starts, and finishes once let go.
    await page.locator('[data-testid=pull-item][data-model="phi4:14b"]').getByTestId('pull-cancel').click();
    await page.locator('[data-testid=pull-item][data-model="phi4:14b"][data-state=cancelled]').waitFor();
    assert.deepEqual((await calls(page, 'cancel_pull')).map((c) => c.args.model), ['phi4:14b']);
    await page.locator('[data-testid=pull][data-state=running]').waitFor();
    await page.evaluate(() => { window.__hearthMock.pulls.held = false; });
    await page.getByTestId('toast-text').filter({ hasText: 'gemma3:4b is installed' }).waitFor();
    await page.locator('[data-testid=model-item][data-model="gemma3:4b"]').waitFor();
    assert.equal(await page.locator('[data-testid=model-item][data-model="phi4:14b"]').count(), 0);
    await page.getByTestId('pull-chip').waitFor({ state: 'detached' });
    assert.deepEqual((await calls(page, 'start_pull')).map((c) => c.args.model), ['phi4:14b', 'gemma3:4b']);
  }));

test('a model the registry lacks fails with the server’s reason and can be pulled again', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-models').click();
    await page.getByTestId('pull-name').fill('no-such-model');
    await page.getByTestId('pull-button').click();
    const failed = page.locator('[data-testid=pull][data-state=failed]');
    await failed.waitFor();
    assert.match(await failed.getByTestId('pull-error').textContent(), /^there is no model `no-such-model` in the Ollama library/);
    assert.equal(await failed.getByTestId('pull-button').textContent(), 'Pull no-such-model again');
  }));

test('Enter in the name field pulls; a finished pull leaves the list and says the model is installed', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-models').click();
    await page.getByTestId('pull-name').fill('gemma3:4b');
    await page.getByTestId('pull-name').press('Enter');
    await page.locator('[data-testid=model-item][data-model="gemma3:4b"]').waitFor();
    assert.deepEqual((await calls(page, 'start_pull')).map((c) => c.args.model), ['gemma3:4b']);
    // The name still typed: installed, and an update is not the main action.
    await page.getByTestId('pull-status').filter({ hasText: 'gemma3:4b is installed' }).waitFor();
    assert.equal(await page.getByTestId('pull-button').textContent(), 'Check for an update');
    // Another name typed: the finished pull is not listed to be pulled again.
    await page.getByTestId('pull-name').fill('phi4:14b');
    await page.getByTestId('pull-button').filter({ hasText: 'Pull phi4:14b' }).waitFor();
    assert.equal(await page.locator('[data-testid=pull-item]').count(), 0);
    // Enter while a pull of that name is going on starts no second one.
    await page.evaluate(() => { window.__hearthMock.pulls.held = true; });
    await page.getByTestId('pull-name').press('Enter');
    await page.locator('[data-testid=pull][data-state=running]').waitFor();
    await page.getByTestId('pull-name').press('Enter');
    await page.evaluate(() => { window.__hearthMock.pulls.held = false; });
    await page.locator('[data-testid=model-item][data-model="phi4:14b"]').waitFor();
    assert.deepEqual((await calls(page, 'start_pull')).map((c) => c.args.model), ['gemma3:4b', 'phi4:14b']);
  }));
