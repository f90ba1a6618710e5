// Read aloud (the mock plays the shell and its text-to-speech server):
// each answer has a speaker button that reads it, shows "stop" while it is
// read and stops it on a second press or once the server is quiet; a
// missing server says how to set one up; a profile can read its answers
// as they stream.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('the speaker button reads the answer, shows stop while it is read, and stops it', () =>
  withApp('', async ({ page }) => {
    await send(page, 'Tell me about Paris');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    const button = answer.getByTestId('speak-answer');
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
    await button.click();
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'speak_text'));
    const [spoken] = await calls(page, 'speak_text');
    // The answer's own text goes to the shell (which reads its Markdown).
    const shown = (await answer.getByTestId('markdown').first().innerText()).trim().split(/\s+/)[0];
    assert.ok(String(spoken.args.text).includes(shown), `${spoken.args.text} / ${shown}`);
    await answer.locator('[data-testid=speak-answer][aria-pressed=true]').waitFor();
    assert.equal(await button.getAttribute('aria-label'), 'Stop reading aloud');
    // A second press stops it.
    await button.click();
    await answer.locator('[data-testid=speak-answer][aria-pressed=false]').waitFor();
    assert.equal((await calls(page, 'stop_speaking')).length, 1);

    // Read to its end: the server goes quiet and the button comes back.
    await button.click();
    await answer.locator('[data-testid=speak-answer][aria-pressed=true]').waitFor();
    await page.evaluate(() => (window.__hearthMock.speaking = false));
    await answer.locator('[data-testid=speak-answer][aria-pressed=false]').waitFor();
    assert.equal((await calls(page, 'speak_text')).length, 2);
  }));

test('without a text-to-speech server the button says how to set one up', () =>
  withApp('', async ({ page }) => {
    await page.evaluate(() => (window.__hearthMock.config.noSpeaker = true));
    await send(page, 'Hello');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('speak-answer').click();
    await page.getByTestId('toast-text').filter({ hasText: 'No text-to-speech server is set up' }).waitFor();
    await answer.locator('[data-testid=speak-answer][aria-pressed=false]').waitFor();
  }));

test('a profile reads its answers aloud once its box is ticked', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-profiles').click();
    await page.locator('[data-testid=profile-item][data-profile=Chat]').getByTestId('profile-edit').click();
    const box = page.getByTestId('profile-read-aloud');
    assert.equal(await box.isChecked(), false);
    await box.check();
    await page.getByTestId('profile-save').click();
    await page.getByTestId('profile-editor').waitFor({ state: 'detached' });
    const saved = (await calls(page, 'save_profile')).at(-1).args.profile;
    assert.equal(saved.name, 'Chat');
    assert.equal(saved.read_aloud, true);
  }));
