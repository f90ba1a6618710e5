// Voice input in the composer (the mock plays the speech server): the
// microphone button shows the recording state and the partial transcript
// as it grows; a whole utterance is sent as a typed message is (queued
// while an answer streams), or, with "send at once" off, waits in the
// composer; Stop finishes what was being said; holding Ctrl+Shift+Space
// talks; no server and a missing microphone say why and how to fix it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, setup, stepAll, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

const say = (page, text) => page.evaluate((t) => window.__hearthMock.voice.say(t), text);
const listening = (page) => page.locator('[data-testid=voice-state][data-state=listening]').waitFor();

test('the microphone button listens, shows what is heard, and sends each utterance as a typed message', () =>
  withApp('', async ({ page }) => {
    // The server starts only once the page has been seen starting.
    await page.evaluate(() => (window.__hearthMock.voice.holdStart = true));
    const button = page.getByTestId('voice-button');
    await page.getByTestId('composer-input').waitFor();
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
    await button.click();
    await page.locator('[data-testid=voice-state][data-state=starting]').waitFor();
    await page.evaluate(() => (window.__hearthMock.voice.holdStart = false));
    await listening(page);
    await page.evaluate(() => (window.__hearthMock.voice.stepMs = 120));
    assert.equal(await button.getAttribute('aria-pressed'), 'true');
    assert.equal(await button.getAttribute('aria-label'), 'Stop listening');
    assert.deepEqual((await calls(page, 'voice_start')).map((c) => c.args.source), ['microphone']);

    // The partial grows in the composer; the final is sent. The mock says
    // no more once it has said 'What is the capital' until the page has
    // shown it; the rest of the test says a word every 400 ms.
    await page.evaluate(() => Object.assign(window.__hearthMock.voice, { holdAt: 'What is the capital', stepMs: 400 }));
    const said = say(page, 'What is the capital of France?');
    await page.waitForFunction(() => document.querySelector('[data-testid=voice-partial]')?.textContent === 'What is the capital');
    await page.evaluate(() => (window.__hearthMock.voice.holdAt = null));
    await said;
    await page.getByTestId('message-user').filter({ hasText: 'What is the capital of France?' }).waitFor();
    assert.equal(await page.getByTestId('voice-partial').innerText(), '');
    const sent = await calls(page, 'send_message');
    assert.equal(sent.at(-1).args.text, 'What is the capital of France?');

    // A file waiting in the composer stays there for the typed message.
    await page.getByTestId('attach-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('my notes') });
    await page.getByTestId('attachment').waitFor();
    await say(page, 'Thanks a lot.');
    await page.getByTestId('message-user').filter({ hasText: 'Thanks a lot.' }).waitFor();
    assert.deepEqual((await calls(page, 'send_message')).at(-1).args.attachments, []);
    assert.equal(await page.getByTestId('attachment').count(), 1);
    await waitIdle(page);

    // Said while the answer streams (held by the mock until stepped):
    // queued into it, as typed text is.
    await waitIdle(page);
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    const before = (await calls(page, 'send_message')).length;
    await page.getByTestId('composer-input').fill('Tell me a story');
    await page.getByTestId('composer-input').press('Enter');
    await page.getByTestId('stop-button').waitFor();
    await page.getByTestId('composer-input').fill('typed, not sent');
    await say(page, 'And make it short.');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'queue_message' && c.args.text === 'And make it short.'));
    assert.equal((await calls(page, 'send_message')).length, before + 1);
    // What the user was typing stays theirs.
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'typed, not sent');
    await page.evaluate(() => (window.__hearthMock.config.stepped = false));
    await stepAll(page);
    await waitIdle(page);

    // Stop: what was being said still comes, then it is off.
    await page.evaluate(() => (window.__hearthMock.voice.pending = 'One more thing.'));
    await button.click();
    await page.locator('[data-testid=voice-state][data-state=stopping]').waitFor();
    await page.getByTestId('voice-state').waitFor({ state: 'detached' });
    await page.getByTestId('message-user').filter({ hasText: 'One more thing.' }).waitFor();
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
  }));

test('with "send at once" off an utterance waits in the composer after what was typed', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const box = page.getByTestId('voice-send');
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.waitForFunction(() => window.__hearthMock.prefs.voice_send === false);
    await page.keyboard.press('Escape');
    await page.getByTestId('panel-settings').waitFor({ state: 'detached' });
    const input = page.getByTestId('composer-input');
    await input.fill('Translate:');
    await page.getByTestId('voice-button').click();
    await listening(page);
    await say(page, 'Good morning to you.');
    await page.waitForFunction(() => document.querySelector('[data-testid=composer-input]').value === 'Translate: Good morning to you.');
    assert.equal((await calls(page, 'send_message')).length, 0);
    await page.getByTestId('voice-button').click();
    await page.getByTestId('voice-state').waitFor({ state: 'detached' });
  }));

test('holding Ctrl+Shift+Space talks; letting go of Space stops', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('composer-input').waitFor();
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.down('Space');
    await listening(page);
    await page.evaluate(() => (window.__hearthMock.voice.pending = 'Held to talk.'));
    await page.keyboard.up('Space');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
    await page.getByTestId('voice-state').waitFor({ state: 'detached' });
    await page.getByTestId('message-user').filter({ hasText: 'Held to talk.' }).waitFor();
    assert.equal((await calls(page, 'voice_start')).length, 1);
    assert.equal((await calls(page, 'voice_stop')).length, 1);
    // The chord typed nothing into the message.
    assert.equal(await page.getByTestId('composer-input').inputValue(), '');
  }));

test('no speech server says how to set one up; a missing microphone says so; both can be dismissed', () =>
  withApp('', async ({ page }) => {
    await page.evaluate(() => (window.__hearthMock.voice.setup = 'none'));
    const button = page.getByTestId('voice-button');
    await button.click();
    const problem = page.getByTestId('voice-problem');
    await problem.filter({ hasText: 'No speech-to-text server is set up' }).waitFor();
    assert.match(await problem.innerText(), /voice\/setup\.sh/);
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
    await page.getByTestId('voice-dismiss').click();
    await problem.waitFor({ state: 'detached' });

    await page.evaluate(() => (window.__hearthMock.voice.setup = 'no-device'));
    await button.click();
    await problem.filter({ hasText: 'no microphone' }).waitFor();
    await page.getByTestId('voice-state').waitFor({ state: 'detached' });
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
    assert.equal((await calls(page, 'send_message')).length, 0);
  }));

test('a session left listening by the page before a reload is stopped at load', () =>
  withApp('voice=listening', async ({ page }) => {
    await page.getByTestId('composer-input').waitFor();
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'voice_stop'));
    assert.equal((await page.evaluate(() => window.__hearthMock.voice.status())).state, 'off');
    assert.equal(await page.getByTestId('voice-button').getAttribute('aria-pressed'), 'false');
  }));

test('a stop the shell had to end without its last events still turns listening off', () =>
  withApp('', async ({ page }) => {
    const button = page.getByTestId('voice-button');
    await button.click();
    await listening(page);
    await page.evaluate(() => (window.__hearthMock.voice.silentStop = true));
    await button.click();
    await page.getByTestId('voice-state').waitFor({ state: 'detached' });
    assert.equal(await button.getAttribute('aria-pressed'), 'false');
    assert.equal(await button.isDisabled(), false);
  }));
