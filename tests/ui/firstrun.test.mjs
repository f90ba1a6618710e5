// The first run, from whatever state the server is in, to a streamed
// answer: no server (found by itself once started), a server with no model
// (recommended models and a pull), a server without the seeded model (the
// profiles move to an installed one, once), and a profile whose model is
// missing (said before the first send, with the installed models offered).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

async function answered(page, text) {
  await page.getByTestId('new-session').click();
  await send(page, text);
  await waitIdle(page);
  const answer = page.getByTestId('message-assistant').last();
  await answer.waitFor();
  assert.equal(await answer.getAttribute('data-status'), 'done');
  assert.ok((await answer.textContent()).trim().length > 0);
}

test('a server started after the app is found without a restart', () =>
  withApp('unreachable=1', async ({ page }) => {
    const banner = page.getByTestId('backend-banner');
    await banner.waitFor();
    assert.match(await banner.textContent(), /ollama\.com\/download/);
    const asked = (await calls(page, 'backend_status')).length;
    await page.evaluate(() => { window.__hearthMock.config.reachable = true; });
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
    assert.ok((await calls(page, 'backend_status')).length > asked, 'the banner asked again by itself');
    await answered(page, 'hello');
  }));

test('an empty server: recommended tool-capable models with sizes, a pull, then the seeds use it', () =>
  withApp('firstrun=empty', async ({ page }) => {
    const notice = page.getByTestId('no-models');
    await notice.waitFor();
    const offered = await notice.getByTestId('recommended').evaluateAll((els) => els.map((e) => [e.dataset.model, e.textContent]));
    assert.ok(offered.length >= 3, JSON.stringify(offered));
    for (const [, text] of offered) assert.match(text, /\d(\.\d)? GB/);
    // Nothing says "How can I help?" or names a model the server lacks
    // (defect 19).
    await page.getByTestId('new-session').click();
    assert.equal(await page.getByTestId('empty-heading').textContent(), 'First, a model');
    assert.equal(await page.getByTestId('current-model').textContent(), 'no model yet');
    const pick = notice.locator('[data-testid=recommended][data-model="llama3.2:3b"]');
    // The list does not jump when the pull starts.
    const rows = () => notice.getByTestId('recommended').evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.height)]; }));
    const before = await rows();
    await page.evaluate(() => { window.__hearthMock.pulls.held = true; });
    await pick.getByTestId('pull-button').click();
    await pick.getByTestId('pull-progress').waitFor();
    await pick.getByTestId('pull-eta').waitFor();
    assert.deepEqual(await rows(), before, 'the rows keep their places');
    await page.evaluate(() => { window.__hearthMock.pulls.held = false; });
    await notice.waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal((await calls(page, 'start_pull'))[0].args.model, 'llama3.2:3b');
    await page.getByTestId('toast-text').filter({ hasText: 'Agent and Chat now use llama3.2:3b' }).waitFor();
    assert.equal(await page.getByTestId('model-missing').count(), 0);
    assert.equal(await page.getByTestId('current-model').textContent(), 'llama3.2:3b');
    await answered(page, 'hello');
  }));

test('a server without the seeded model: the profiles move to an installed tool-capable one, said once', () =>
  withApp('firstrun=fresh', async ({ page }) => {
    await page.getByTestId('toast-text').filter({ hasText: 'Agent and Chat now use qwen3:8b' }).waitFor();
    assert.equal(await page.getByTestId('model-missing').count(), 0);
    await answered(page, 'hello');
    const profiles = await page.evaluate(() => window.__hearthMock.profiles.map((p) => p.model));
    assert.deepEqual(profiles, ['qwen3:8b', 'qwen3:8b']);
  }));

// The editor was opened while the server was still down: once it answers,
// the seeded model moves, and saving the form must not put it back.
async function editChatWhileDown(page) {
  await page.getByTestId('backend-banner').waitFor();
  await page.getByTestId('open-profiles').click();
  await page.locator('[data-testid=profile-item][data-profile=Chat]').getByTestId('profile-edit').click();
  const model = page.getByTestId('profile-model');
  assert.equal(await model.inputValue(), 'llama3.2');
  await page.getByTestId('profile-prompt').fill('Answer in French.');
  return model;
}

async function savedAfterTheMove(page, field) {
  const listed = (await calls(page, 'list_profiles')).length;
  await page.evaluate(() => { window.__hearthMock.config.reachable = true; });
  await page.getByTestId('toast-text').filter({ hasText: 'Agent and Chat now use qwen3:8b' }).waitFor({ timeout: 10_000 });
  // The moved profiles have reached the page.
  await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'list_profiles').length > n, listed, { timeout: 10_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  await page.waitForFunction((v) => document.querySelector('[data-testid=profile-model]')?.value === v, field, { timeout: 10_000 });
  await page.getByTestId('profile-save').click();
  await page.getByTestId('profile-editor').waitFor({ state: 'detached' });
  return (await calls(page, 'save_profile')).at(-1).args.profile;
}

test('an editor opened before the seeded profiles moved saves the new model, with the edits', () =>
  withApp('firstrun=fresh&unreachable=1', async ({ page }) => {
    const model = await editChatWhileDown(page);
    const saved = await savedAfterTheMove(page, 'qwen3:8b');
    assert.equal(await model.count(), 0, 'saved and closed');
    assert.equal(saved.model, 'qwen3:8b');
    assert.equal(saved.system_prompt, 'Answer in French.');
  }));

test('an editor whose model the user changed keeps that model when the seeded profiles move', () =>
  withApp('firstrun=fresh&unreachable=1', async ({ page }) => {
    const model = await editChatWhileDown(page);
    await model.fill('llama3.2:3b');
    const saved = await savedAfterTheMove(page, 'llama3.2:3b');
    assert.equal(saved.model, 'llama3.2:3b');
    assert.equal(saved.system_prompt, 'Answer in French.');
  }));

test('a profile whose model is missing says so before the first send and offers the installed models', () =>
  withApp('firstrun=missing', async ({ page }) => {
    const notice = page.getByTestId('model-missing');
    await notice.waitFor();
    assert.equal(await notice.getAttribute('data-model'), 'llama3.2');
    assert.match(await notice.textContent(), /Chat.*llama3\.2.*does not have/s);
    const choices = await notice.getByTestId('use-model').evaluateAll((els) => els.map((e) => e.dataset.model));
    assert.deepEqual(choices.sort(), ['llama3.2:3b', 'qwen3:8b']);
    await notice.locator('[data-testid=use-model][data-model="qwen3:8b"]').click();
    await notice.waitFor({ state: 'detached' });
    const saved = (await calls(page, 'save_profile')).at(-1).args;
    assert.equal(saved.profile.name, 'Chat');
    assert.equal(saved.profile.model, 'qwen3:8b');
    await answered(page, 'hello');
  }));

test("a session's own model deleted since says so, and choosing another changes the session, not the profile", () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('model-picker').click();
    await page.locator('[data-testid=model-option][data-model="llama3.2:3b"]').click();
    assert.equal(await page.getByTestId('model-missing').count(), 0);
    // Deleted from the server in the models panel.
    await page.getByTestId('open-models').click();
    const item = page.locator('[data-testid=model-item][data-model="llama3.2:3b"]');
    await item.getByTestId('delete-model-button').click();
    await item.getByTestId('delete-model-yes').click();
    await item.waitFor({ state: 'detached' });
    await page.getByTestId('panel-close').click();
    const notice = page.getByTestId('model-missing');
    await notice.waitFor({ timeout: 10_000 });
    assert.equal(await notice.getAttribute('data-model'), 'llama3.2:3b');
    assert.match(await notice.textContent(), /This session uses llama3\.2:3b, which this server does not have/);
    await notice.locator('[data-testid=use-model][data-model="qwen3:8b"]').click();
    await notice.waitFor({ state: 'detached' });
    assert.equal((await calls(page, 'set_session_model')).at(-1).args.model, null, "qwen3:8b is the profile's model");
    assert.equal((await calls(page, 'save_profile')).length, 0, 'the profile is not touched');
  }));
