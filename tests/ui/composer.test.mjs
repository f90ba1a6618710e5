// The composer: focused when a session opens, growing with its text, a
// draft kept per session, and Up in an empty composer editing the last
// message sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));

test('the composer takes the focus at start, after New chat and on a switch, and keeps each session its draft', () =>
  withApp('', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
    await input.fill('half-written in Welcome');

    await page.getByTestId('new-session').click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input' && document.activeElement.value === '');
    await send(page, 'hello');
    await waitIdle(page);
    // The answer replaced the view; the focus stayed where it was.
    assert.equal(await focused(page), 'composer-input');
    await input.fill('draft of the new one');

    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.waitForFunction(() => document.activeElement?.value === 'half-written in Welcome');
    await page.getByTestId('session-item').nth(0).getByTestId('session-open').click();
    await page.waitForFunction(() => document.activeElement?.value === 'draft of the new one');
  }));

test('a field typed in while the first session opens keeps the focus and every key', async () => {
  // A panel's field, and the sidebar's search.
  for (const [panel, id] of [['open-settings', 'host-name'], [null, 'search-input']]) {
    await withApp('holdopen=1', async ({ page }) => {
      if (panel) await page.getByTestId(panel).click();
      const field = page.getByTestId(id);
      await field.click();
      await page.keyboard.type('gpu');
      assert.equal(await page.getByTestId('message-user').count(), 0, 'no session is open yet');
      // The first session opens while the person types (a slow server).
      await page.evaluate(() => window.__hearthMock.releaseOpen());
      await page.getByTestId('composer-input').and(page.locator(':enabled')).waitFor();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.keyboard.type('2');
      assert.equal(await focused(page), id);
      assert.equal(await field.inputValue(), 'gpu2');
      assert.equal(await page.getByTestId('composer-input').inputValue(), '');
    });
  }
});

test('the composer grows with its text and shrinks back', () =>
  withApp('', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    // Once the session is open: opening it shows its own draft (none).
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
    const height = () => input.evaluate((t) => t.getBoundingClientRect().height);
    const empty = await height();
    await input.fill(Array.from({ length: 8 }, (_, i) => `line ${i}`).join('\n'));
    await page.waitForFunction((h) => document.querySelector('[data-testid=composer-input]').getBoundingClientRect().height > h + 40, empty);
    // Never past a third of the window.
    assert.ok((await height()) <= (await page.evaluate(() => window.innerHeight / 3)) + 1);
    await input.fill('');
    await page.waitForFunction((h) => document.querySelector('[data-testid=composer-input]').getBoundingClientRect().height <= h + 1, empty);
  }));

test('Up in an empty composer edits the last message sent; Up with text moves the caret as usual', () =>
  withApp('', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
    await input.fill('not empty');
    await input.press('ArrowUp');
    assert.equal(await page.getByTestId('edit-input').count(), 0);
    await input.fill('');
    await input.press('ArrowUp');
    const edit = page.getByTestId('edit-input');
    await edit.waitFor();
    assert.equal(await edit.inputValue(), 'Hello there');
    await edit.press('Escape');
    await edit.waitFor({ state: 'detached' });
  }));

test('a toast stands above the composer, never over it', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    await page.getByTestId('host-name').fill('ollama');
    await page.getByTestId('host-url').fill('http://x:1');
    await page.getByTestId('host-add').locator('button[type=submit]').click();
    const toast = page.getByTestId('toast-text').filter({ hasText: 'is the name of the server in the settings' });
    await toast.waitFor();
    const box = await page.locator('.toasts').boundingBox();
    const composer = await page.locator('.composer-wrap').boundingBox();
    assert.ok(box.y + box.height <= composer.y, `toast bottom ${box.y + box.height} above the composer's top ${composer.y}`);
  }));

test('toasts do not pile up: the same words are one toast, and at most three show', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    const add = async (name, url) => {
      await page.getByTestId('host-name').fill(name);
      await page.getByTestId('host-url').fill(url);
      await page.getByTestId('host-add').locator('button[type=submit]').click();
    };
    const refused = page.getByTestId('toast').filter({ hasText: '`ollama` is the name of the server in the settings' });
    for (let i = 1; i <= 3; i++) {
      await add('ollama', 'http://x:1');
      await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'add_host').length === n, i);
    }
    await refused.waitFor();
    assert.equal(await refused.count(), 1, 'the same refusal three times is one toast');
    await add('openai', 'http://x:1');
    await add('nas', 'file:///etc/passwd');
    await add('bad name!', 'http://x:1');
    await page.getByTestId('toast').filter({ hasText: 'a host\'s name is letters' }).waitFor();
    assert.equal(await page.getByTestId('toast').count(), 3, 'the oldest gave way');
    assert.equal(await refused.count(), 0);
  }));

test('/ offers the commands: Tab completes, Enter runs a whole one, and anything else with a / is a message', () =>
  withApp('', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
    await input.type('/');
    const menu = page.getByTestId('slash-menu');
    await menu.waitFor();
    const labels = await menu.getByTestId('slash-item').evaluateAll((els) => els.map((e) => e.querySelector('.slash-label')?.textContent));
    assert.deepEqual(labels, ['/model NAME', '/profile NAME', '/plan REQUEST', '/new', '/clear', '/settings', '/help']);

    await input.type('mo');
    await input.press('Tab');
    assert.equal(await input.inputValue(), '/model ');
    await input.type('llama');
    assert.deepEqual(await menu.locator('.slash-label').allInnerTexts(), ['llama3.2:3b']);
    await input.press('Enter');
    assert.equal(await input.inputValue(), '/model llama3.2:3b', 'Enter completes a command not yet whole');
    await input.press('Enter');
    await page.getByTestId('current-model').filter({ hasText: 'llama3.2:3b' }).waitFor();
    assert.equal(await input.inputValue(), '');

    await input.fill('/profile agent');
    await input.press('Enter');
    await page.getByTestId('current-profile').filter({ hasText: 'Agent' }).waitFor();

    await input.fill('/model nosuch');
    await input.press('Enter');
    await page.getByTestId('toast').filter({ hasText: 'there is no model “nosuch”' }).waitFor();
    assert.equal(await input.inputValue(), '/model nosuch', 'the text stays to be fixed');

    assert.equal((await page.evaluate(() => window.__hearthMock.calls.filter((c) => c.cmd === 'send_message'))).length, 0, 'no command was sent as a message');
    // A command that takes nothing, with words after it, is a message.
    await input.fill('/help me with a cover letter');
    await input.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'send_message' && c.args.text === '/help me with a cover letter'));
    assert.equal(await page.getByTestId('palette').count(), 0);
    await page.getByTestId('send-button').waitFor();
    await input.fill('/etc/hosts is empty, why?');
    await input.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'send_message' && c.args.text === '/etc/hosts is empty, why?'));
    await page.getByTestId('send-button').waitFor();

    const before = await page.evaluate(() => window.__hearthMock.calls.filter((c) => c.cmd === 'new_session').length);
    await input.fill('/new');
    await input.press('Enter');
    await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'new_session').length === n + 1, before);
  }));

test('what is typed and not sent is kept in the store, found again after a restart, and forgotten once sent', () =>
  withApp('unsent=half%20a%20thought', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    // The restarted app's Welcome session: its unsent text is back.
    await page.waitForFunction(() => document.querySelector('[data-testid=composer-input]')?.value === 'half a thought');
    const saved = () => page.evaluate(() => window.__hearthMock.calls.filter((c) => c.cmd === 'save_unsent').map((c) => c.args.text));
    assert.deepEqual(await saved(), [], 'opening writes nothing back');
    await input.fill('half a thought, and more');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'save_unsent' && c.args.text === 'half a thought, and more'));
    // Switched away before the pause: written at once, for the session it belongs to.
    await input.fill('typed then left');
    await page.getByTestId('new-session').click();
    await page.waitForFunction(() =>
      window.__hearthMock.calls.some((c) => c.cmd === 'save_unsent' && c.args.text === 'typed then left' && c.args.sessionId === 's1'),
    );
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=composer-input]')?.value === 'typed then left');
    await input.press('Enter');
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'save_unsent' && c.args.text === ''));
    await page.getByTestId('send-button').waitFor();
    assert.equal(await page.evaluate(() => window.__hearthMock.sessions.get('s1').unsent), null);
  }));

test('a message refused after the person went to another session waits in its own session, not in the one on screen', () =>
  withApp('refusesend=800', async ({ page }) => {
    const input = page.getByTestId('composer-input');
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await input.fill('a message the server will refuse');
    await page.getByTestId('send-button').click();
    // Elsewhere before the refusal comes.
    await page.getByTestId('new-session').click();
    await page.getByTestId('toast-text').filter({ hasText: /was not sent; it is back in that session's composer/ }).waitFor();
    assert.equal(await input.inputValue(), '', 'the session on screen is not given it');
    const [kept] = (await calls(page, 'save_unsent')).filter((c) => c.args.text === 'a message the server will refuse');
    assert.ok(kept, 'kept as that session\'s unsent text');
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=composer-input]')?.value === 'a message the server will refuse');
    assert.equal(kept.args.sessionId, await page.locator('[data-testid=session-item].current').getAttribute('data-session-id'));
  }));
