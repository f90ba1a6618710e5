// The conversation: streaming, thinking, plan, tool cards (with a nested
// sub-agent), stop, queued messages, branches, usage and the context meter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, stepAll, stepUntil, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('text streams in progressively, sanitized Markdown with highlighted code', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('transcript-empty').waitFor();
    await send(page, 'hello');
    const live = page.locator('[data-testid=message-assistant][data-live=true]');
    await live.waitFor();
    // Seen partially before it is complete.
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid=message-assistant][data-live=true]');
      return el && el.textContent.includes('Hello') && !el.textContent.includes('And a');
    });
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('And a').waitFor();
    assert.equal(await answer.locator('pre.code code .hljs-keyword').first().textContent(), 'fn');
    await answer.getByTestId('copy-code').waitFor();
    await answer.getByTestId('usage').filter({ hasText: 'tok/s' }).waitFor();
    assert.equal(await answer.getByTestId('usage').textContent(), '50.0 tok/s · 1200 in · 300 out');
    assert.match(await page.getByTestId('context-text').textContent(), /18% of 8k/);
    // Links go to the shell's opener, not the webview.
    await answer.getByRole('link', { name: 'link' }).click();
    assert.deepEqual((await calls(page, 'open_link')).map((c) => c.args.url), ['https://example.com']);
    assert.equal(new URL(page.url()).hostname, '127.0.0.1');
  }));

test('thinking (native and <think> tags split across deltas) is shown and collapsible', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'think please');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('The final answer is').waitFor();
    const thinking = answer.getByTestId('thinking');
    assert.match(await thinking.textContent(), /Native thinking.*Tagged reasoning here/s);
    assert.doesNotMatch(await answer.getByTestId('markdown').first().textContent(), /think>|Tagged/);
    // How long it reasoned (the core's figure), not how many characters.
    assert.equal(await thinking.getByTestId('thinking-summary').textContent(), 'Thought for 2.3 s');
  }));

test('live thinking splits <think> tags out of text while streaming', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    // The run's events are sent one at a time by the test (stepped), so
    // each state is read while the answer is still live.
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'think live');
    const live = page.locator('[data-testid=message-assistant][data-live=true]');
    const shown = async () => (await live.getByTestId('markdown').allTextContents()).join('');
    await stepUntil(page, 'text_delta'); // '<thi', the start of a tag
    await live.getByTestId('thinking').filter({ hasText: 'about thinking' }).first().waitFor();
    assert.doesNotMatch(await shown(), /<thi/);
    await stepUntil(page, 'text_delta'); // the tag's reasoning and '</th'
    await live.getByTestId('thinking').filter({ hasText: 'Tagged reasoning' }).first().waitFor();
    assert.doesNotMatch(await shown(), /<thi|think>|<\/th/);
    await stepUntil(page, 'thinking_ended');
    await live.getByTestId('thinking-summary').filter({ hasText: 'Thought for 2.3 s' }).waitFor();
    assert.doesNotMatch(await shown(), /<thi|think>|<\/th/);
    await stepAll(page);
    await waitIdle(page);
  }));

test('plan card, tool cards pending then filled, sub-agent nested under spawn_agent', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'plan then answer');
    await page.getByTestId('plan-card').filter({ hasText: 'Look around' }).waitFor();
    await waitIdle(page);

    await page.evaluate(() => (window.__hearthMock.config.tickMs = 120));
    await send(page, 'use tools');
    const spawn = page.locator('[data-testid=tool-card][data-tool=spawn_agent]');
    await spawn.locator('[data-testid=tool-status]', { hasText: 'running' }).waitFor();
    // The sub-agent's own tool call shows inside the spawn_agent card.
    const nested = spawn.getByTestId('subagent').locator('[data-testid=tool-card][data-tool=run_shell]');
    await nested.waitFor();
    await spawn.getByTestId('subagent').getByText('Sub-agent summary text.').waitFor();
    assert.equal(await nested.getAttribute('data-outcome'), 'error');
    const read = page.locator('[data-testid=tool-card][data-tool=read_file]').first();
    assert.equal(await read.getAttribute('data-outcome'), 'ok');
    assert.match(await read.getByTestId('tool-duration').textContent(), /12 ms/);
    assert.match(await read.getByTestId('tool-args').textContent(), /README\.md/);
    await waitIdle(page);
    // After the run, the stored answer shows the calls with their results;
    // the sub-agent's result is its last answer, shown once (in its blocks).
    const stored = page.getByTestId('message-assistant').last();
    const storedSpawn = stored.locator('[data-testid=tool-card][data-tool=spawn_agent]');
    await storedSpawn.getByTestId('tool-output-repeated').waitFor({ state: 'attached' });
    assert.equal(await storedSpawn.getByText('Sub-agent summary text.').count(), 1);
    assert.equal(await stored.locator('[data-testid=tool-card][data-tool=read_file] [data-testid=tool-output]').textContent(), '# Readme contents');
    assert.equal(await page.getByTestId('message-user').filter({ hasText: '# Readme' }).count(), 0);
  }));

test('tool cards say what happened: a made-up tool name, a sub-agent without text, a failed sub-agent\'s own good call', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'odd cards');
    await stepUntil(page, 'text_delta');
    // A name the model invented is not a tool's title (user pass 2026-12, defect 27).
    const made = page.locator('[data-testid=tool-card][data-tool="shopping.txt"]');
    assert.equal(await made.getByTestId('tool-unknown').textContent(), 'no such tool: “shopping.txt”');
    assert.equal(await made.locator('.tool-name:not(.unknown)').count(), 0);
    // A sub-agent that ended without text says so, not an empty result.
    const quiet = page.locator('[data-testid=tool-card][data-tool=spawn_agent]').first();
    assert.equal(await quiet.getAttribute('data-outcome'), 'ok');
    assert.match(await quiet.getByTestId('tool-output-empty').textContent(), /finished without a text answer/);
    assert.equal(await quiet.locator(':scope > .tool-body > [data-testid=tool-output]').count(), 0);
    // Inside a failed sub-agent, its call that went well is not red.
    const failed = page.locator('[data-testid=tool-card][data-tool=spawn_agent][data-outcome=error]');
    const own = failed.locator(':scope > summary [data-testid=tool-status]');
    const inner = failed.getByTestId('subagent').locator('[data-testid=tool-card][data-tool=read_file] [data-testid=tool-status]');
    assert.equal(await inner.textContent(), 'done');
    const colour = (l) => l.evaluate((e) => getComputedStyle(e).color);
    assert.notEqual(await colour(inner), await colour(own), 'the inner "done" has the failed card\'s red');
    assert.equal(await colour(inner), await colour(quiet.locator(':scope > summary [data-testid=tool-status]')));
    await stepAll(page);
    await waitIdle(page);
  }));

test('Stop button stops at once and keeps the partial text', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'slow please');
    await page.locator('[data-testid=message-assistant][data-live=true]').getByText('word3').waitFor();
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
    assert.equal((await calls(page, 'stop_run')).length, 1);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('stopped-badge').waitFor();
    assert.match(await answer.textContent(), /word3/);
    assert.doesNotMatch(await answer.textContent(), /word299/);
    // The bold the Stop cut open is bold, not two stars (defect 29), as
    // the run ends and as the stored answer is shown again.
    const cutOpen = async () => {
      assert.doesNotMatch(await answer.textContent(), /\*\*/);
      assert.match(await answer.locator('strong').first().textContent(), /^word2 word3/);
    };
    await cutOpen();
    // A stopped first answer is never titled: the sidebar names the chat by
    // its question, not "New chat" (defect 12).
    await page.locator('[data-testid=session-item].current .session-title.untitled').filter({ hasText: /^slow please$/ }).waitFor();
    const current = page.locator('[data-testid=session-item].current');
    const other = page.locator('[data-testid=session-item]:not(.current)').first();
    const here = await current.getAttribute('data-session-id');
    await other.click();
    await page.locator(`[data-testid=session-item].current:not([data-session-id="${here}"])`).waitFor();
    await page.locator(`[data-testid=session-item][data-session-id="${here}"]`).click();
    await answer.getByTestId('stopped-badge').waitFor();
    await cutOpen();
  }));

test('Esc stops the answer', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'slow again');
    await page.locator('[data-testid=message-assistant][data-live=true]').getByText('word2').waitFor();
    await page.getByTestId('composer-input').press('Escape');
    await waitIdle(page);
    assert.equal((await calls(page, 'stop_run')).length, 1);
    await page.getByTestId('message-assistant').last().getByTestId('stopped-badge').waitFor();
  }));

test('a message typed during a run is queued, cancellable, then sent into the run', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.queueDelayMs = 600));
    await send(page, 'slow run');
    await page.getByTestId('stop-button').waitFor();
    await send(page, 'cancel me');
    const chip = page.getByTestId('queued-chip').filter({ hasText: 'cancel me' });
    await chip.waitFor();
    await chip.getByTestId('queued-cancel').click();
    await chip.waitFor({ state: 'detached' });
    assert.equal((await calls(page, 'cancel_queued')).length, 1);
    await send(page, 'also consider X');
    await page.getByTestId('queued-chip').filter({ hasText: 'also consider X' }).waitFor();
    // queued_message_sent: the chip goes, a user message appears in the transcript.
    await page.getByTestId('message-user').filter({ hasText: 'also consider X' }).waitFor();
    assert.equal(await page.getByTestId('queued-chip').count(), 0);
    assert.equal(await page.getByTestId('message-user').filter({ hasText: 'cancel me' }).count(), 0);
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
  }));

test('queue_message answering run_ended: the text is sent as a normal message after the run', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => {
      window.__hearthMock.config.queueRunEnded = true;
      window.__hearthMock.config.tickMs = 150;
    });
    await send(page, 'hello');
    await page.getByTestId('stop-button').waitFor();
    await send(page, 'follow-up');
    await page.getByTestId('held-chip').waitFor();
    await page.waitForFunction(() => window.__hearthMock.calls.filter((c) => c.cmd === 'send_message').length === 2, null, { timeout: 10_000 });
    await waitIdle(page);
    await page.getByTestId('message-user').filter({ hasText: 'follow-up' }).waitFor();
  }));

test('regenerate and edit-and-resend make branches reachable through ‹ k/n ›', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'first question');
    await waitIdle(page);
    await page.getByTestId('regenerate-button').last().click();
    await waitIdle(page);
    const pos = page.getByTestId('message-assistant').last().getByTestId('branch-position');
    assert.equal(await pos.textContent(), '2/2');
    await page.getByTestId('message-assistant').last().getByTestId('branch-prev').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=message-assistant] [data-testid=branch-position]')?.textContent === '1/2');
    assert.deepEqual((await calls(page, 'switch_branch')).length, 1);

    await page.getByTestId('user-row').last().getByTestId('edit-button').click();
    await page.getByTestId('edit-input').fill('edited question');
    await page.getByTestId('edit-send').click();
    await waitIdle(page);
    await page.getByTestId('message-user').filter({ hasText: 'edited question' }).waitFor();
    assert.equal(await page.getByTestId('user-row').last().getByTestId('branch-position').textContent(), '2/2');
    await page.getByTestId('user-row').last().getByTestId('branch-prev').click();
    await page.getByTestId('message-user').filter({ hasText: 'first question' }).waitFor();
    const edit = await calls(page, 'edit_and_resend');
    assert.equal(edit[0].args.text, 'edited question');

    // A search hit on the branch not shown opens that branch (defect 6).
    await page.getByTestId('search-input').fill('edited question');
    const hit = page.getByTestId('search-hit').filter({ hasText: 'edited question' }).first();
    await hit.click();
    await page.getByTestId('message-user').filter({ hasText: 'edited question' }).waitFor();
    assert.equal(await page.getByTestId('message-user').filter({ hasText: 'first question' }).count(), 0);
    assert.equal((await calls(page, 'switch_branch')).length, 3);
  }));

test('Stop: queued messages the run did not take come back to the composer, after what is typed', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.queueDelayMs = 60_000));
    await send(page, 'slow please');
    await page.getByTestId('stop-button').waitFor();
    await send(page, 'first queued');
    await page.getByTestId('queued-chip').filter({ hasText: 'first queued' }).waitFor();
    await send(page, 'second queued');
    await page.getByTestId('queued-chip').filter({ hasText: 'second queued' }).waitFor();
    await page.getByTestId('composer-input').fill('still typing');
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
    await page.getByTestId('toast-text').filter({ hasText: '2 queued messages were not sent' }).waitFor();
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'still typing\n\nfirst queued\n\nsecond queued');
    assert.equal(await page.getByTestId('queued-chip').count(), 0);
    assert.equal((await calls(page, 'send_message')).length, 1);
  }));

test('error: a queued message the run did not take comes back to the composer', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => Object.assign(window.__hearthMock.config, { queueDelayMs: 60_000, tickMs: 400 }));
    await send(page, 'fail now');
    await page.getByTestId('stop-button').waitFor();
    await send(page, 'left behind');
    await page.getByTestId('queued-chip').filter({ hasText: 'left behind' }).waitFor();
    await page.getByTestId('run-error').first().waitFor({ timeout: 10_000 });
    await page.getByTestId('toast-text').filter({ hasText: '1 queued message was not sent' }).waitFor();
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'left behind');
    assert.equal(await page.getByTestId('queued-chip').count(), 0);
  }));

/** Waits until the page has asked the opener `n` times. */
async function openLinkCalls(page, n) {
  await page.waitForFunction((k) => window.__hearthMock.calls.filter((c) => c.cmd === 'open_link').length >= k, n, { timeout: 10_000 });
}

test('links: middle click and Enter go to the opener too; image links are percent-encoded', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'links please');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByRole('link', { name: 'the docs' }).click({ button: 'middle' });
    await openLinkCalls(page, 1);
    assert.deepEqual((await calls(page, 'open_link')).map((c) => c.args.url), ['https://example.com/docs']);
    assert.equal(page.context().pages().length, 1, 'no new window');
    await answer.getByRole('link', { name: 'mail us' }).focus();
    await page.keyboard.press('Enter');
    await openLinkCalls(page, 2);
    assert.deepEqual((await calls(page, 'open_link')).map((c) => c.args.url), ['https://example.com/docs', 'mailto:hi@example.com']);
    // A mail link that would attach a file: the app refuses it, and says so.
    await answer.getByRole('link', { name: 'Send the key' }).click();
    await openLinkCalls(page, 3);
    await page.getByTestId('toast-text').filter({ hasText: 'would also set `attach`' }).waitFor({ timeout: 10_000 });
    const images = answer.locator('a.image-link');
    assert.equal(await images.nth(0).getAttribute('href'), 'https://example.com/caf%C3%A9%20menu.png');
    assert.equal(await images.nth(1).getAttribute('href'), 'https://example.com/a%20b.png');
    await images.nth(0).click();
    assert.equal((await calls(page, 'open_link')).at(-1).args.url, 'https://example.com/caf%C3%A9%20menu.png');
    assert.equal(new URL(page.url()).hostname, '127.0.0.1');
  }));
