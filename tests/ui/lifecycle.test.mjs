// The run's lifecycle is one value (ui/src/lib/runPhase.ts): idle,
// starting, running, stopping, ended (done, stopped or error). The
// composer carries it (`data-run`, `data-run-end`), so these tests follow
// each move: a Stop while the run starts or runs, a message sent while it
// starts, a refusal before anything was kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, stepUntil, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** The composer in run phase `kind` (and, for `ended`, ended as `end`). */
function phase(page, kind, end) {
  return page.locator(`[data-testid=composer-wrap][data-run=${kind}]${end ? `[data-run-end=${end}]` : ''}`);
}

/** Records every phase the composer shows from now on (`phases(page)` reads them, repeats dropped). */
async function recordPhases(page) {
  await page.evaluate(() => {
    const wrap = document.querySelector('[data-testid=composer-wrap]');
    window.__phases = [wrap.dataset.run];
    // Every value the attribute held: each record's old value is the one before it.
    new MutationObserver((records) => {
      for (const v of [...records.slice(1).map((r) => r.oldValue), wrap.dataset.run]) if (window.__phases.at(-1) !== v) window.__phases.push(v);
    }).observe(wrap, { attributes: true, attributeFilter: ['data-run'], attributeOldValue: true });
  });
}
const phases = (page) => page.evaluate(() => window.__phases);

test('Stop while the run is starting: stopping at once, the core asked once it names the run, then ended(stopped)', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await phase(page, 'idle').waitFor();
    await recordPhases(page);
    await page.evaluate(() => window.__hearthMock.holdSend());
    await send(page, 'slow please');
    await phase(page, 'starting').waitFor();
    await page.getByTestId('message-user').filter({ hasText: 'slow please' }).waitFor();
    await page.getByTestId('stop-button').click();
    await phase(page, 'stopping').waitFor();
    const stop = page.getByTestId('stop-button');
    assert.equal(await stop.textContent(), 'Stopping…');
    assert.equal(await stop.isDisabled(), true);
    assert.equal((await calls(page, 'stop_run')).length, 0, 'the run has no id yet');

    // The core takes the message: the Stop goes out with the run's id.
    await page.evaluate(() => window.__hearthMock.releaseSend());
    await phase(page, 'ended', 'stopped').waitFor({ timeout: 10_000 });
    await waitIdle(page);
    const stops = await calls(page, 'stop_run');
    const runs = await page.evaluate(() => [...window.__hearthMock.runs.values()].filter((r) => r.prompt === 'slow please').map((r) => r.id));
    assert.equal(stops.length, 1);
    assert.deepEqual([stops[0].args.runId], runs);
    await page.getByTestId('message-assistant').last().getByTestId('stopped-badge').waitFor();
    await page.getByTestId('user-row').filter({ hasText: 'slow please' }).waitFor();
    assert.deepEqual(await phases(page), ['idle', 'starting', 'stopping', 'ended']);
  }));

test('Stop while the run is running: stopping, then ended(stopped) with the text so far', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await phase(page, 'idle').waitFor();
    await recordPhases(page);
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'slow please');
    await stepUntil(page, 'text_delta');
    await stepUntil(page, 'text_delta');
    await phase(page, 'running').waitFor();
    const live = page.locator('[data-testid=message-assistant][data-live=true]');
    await live.getByText('word1').waitFor();
    await page.getByTestId('stop-button').click();
    await phase(page, 'ended', 'stopped').waitFor();
    await waitIdle(page);
    assert.equal((await calls(page, 'stop_run')).length, 1);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('stopped-badge').waitFor();
    assert.doesNotMatch(await answer.textContent(), /word2/);
    assert.deepEqual(await phases(page), ['idle', 'starting', 'running', 'stopping', 'ended']);
    // The next message starts from the ended phase, and ends as done.
    await page.evaluate(() => (window.__hearthMock.config.stepped = false));
    await send(page, 'hello');
    await phase(page, 'ended', 'done').waitFor({ timeout: 10_000 });
    assert.deepEqual((await phases(page)).slice(-3), ['starting', 'running', 'ended']);
  }));

test('a message sent while the run starts waits for its end, then goes as a message of its own', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => window.__hearthMock.holdSend());
    await send(page, 'first question');
    await phase(page, 'starting').waitFor();
    // The Send button is Stop; Enter queues, and with no run to take it
    // yet, the message waits for the run's end.
    await send(page, 'second question');
    await page.getByTestId('held-chip').filter({ hasText: 'second question' }).waitFor();
    assert.equal((await calls(page, 'queue_message')).length, 1);
    assert.equal((await calls(page, 'send_message')).length, 1);
    assert.equal(await page.getByTestId('composer-input').inputValue(), '');

    await page.evaluate(() => window.__hearthMock.releaseSend());
    await page.waitForFunction(() => window.__hearthMock.calls.filter((c) => c.cmd === 'send_message').length === 2, null, { timeout: 10_000 });
    const [first, second] = await calls(page, 'send_message');
    assert.equal(first.args.text, 'first question');
    assert.equal(second.args.text, 'second question');
    await phase(page, 'ended', 'done').waitFor({ timeout: 10_000 });
    await waitIdle(page);
    assert.deepEqual(await page.getByTestId('message-user').allTextContents(), ['first question', 'second question']);
    assert.equal(await page.getByTestId('held-chip').count(), 0);
  }));

test('a message refused before the run was kept: ended(error), the text and files back in the composer', () =>
  withApp('refusesend=400', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('attach-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes') });
    const composerFiles = page.getByTestId('composer-wrap').getByTestId('attachment-name');
    await composerFiles.filter({ hasText: 'notes.txt' }).waitFor();
    // The send is held while the page is read as it starts: with only the
    // 400 ms before the refusal, a loaded machine read it after the refusal
    // had put the file back (CI, 2026-12-08).
    await page.evaluate(() => window.__hearthMock.holdSend());
    await send(page, 'a message the server will refuse');
    await phase(page, 'starting').waitFor();
    // While it starts, the message is shown as sent, with its file; the composer is empty.
    await page.getByTestId('message-user').filter({ hasText: 'a message the server will refuse' }).waitFor();
    assert.equal(await composerFiles.count(), 0);
    assert.equal(await page.getByTestId('transcript').getByTestId('attachment-name').textContent(), 'notes.txt');
    await page.evaluate(() => window.__hearthMock.releaseSend());

    await phase(page, 'ended', 'error').waitFor({ timeout: 10_000 });
    await page.locator('[data-testid=run-error][data-code=invalid_input]').waitFor();
    await waitIdle(page);
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'a message the server will refuse');
    assert.deepEqual(await composerFiles.allTextContents(), ['notes.txt']);
    // Not sent: no bubble says it was.
    assert.equal(await page.getByTestId('message-user').count(), 0);
  }));
