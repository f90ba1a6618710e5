// A run this page did not start (an earlier page load started it; its
// channel is gone): opening its session follows it from the last event
// number the snapshot holds — nothing lost, nothing twice, no polling.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** The words of the live answer, in order. */
async function liveWords(page) {
  const text = await page.locator('[data-testid=message-assistant][data-live=true]').textContent();
  return text.match(/word\d+/g) ?? [];
}

test('a window that opens mid-run catches up by sequence number, with nothing lost or twice and no polling', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'hello');
    await waitIdle(page);
    const [{ args }] = await calls(page, 'send_message');
    const id = args.sessionId;
    // Look at another session while a run starts in this one without us.
    await page.getByTestId('new-session').click();
    await page.getByTestId('transcript-empty').waitFor();
    await page.evaluate((sid) => {
      window.__hearthMock.config.slowDelayMs = 20;
      window.__hearthMock.startDetached(sid, 'slow please');
    }, id);
    await page.waitForFunction(
      (sid) => [...window.__hearthMock.runs.values()].some((r) => r.session === sid && r.events.length > 30),
      id,
    );
    const opensBefore = (await calls(page, 'open_session')).length;
    await page.locator(`[data-testid=session-item][data-session-id="${id}"] [data-testid=session-open]`).click();
    const live = page.locator('[data-testid=message-assistant][data-live=true]');
    await live.getByText('word250').waitFor({ timeout: 15_000 });
    // Every word once, in order, from the first: the snapshot's events and
    // the followed ones meet exactly.
    const words = await liveWords(page);
    assert.ok(words.length > 250, `${words.length} words`);
    assert.deepEqual(words, words.map((_, i) => `word${i}`));
    // Followed once, from the snapshot's last number; the session was read
    // once for the whole catch-up (the old page polled it every second).
    const follows = await calls(page, 'follow_run');
    assert.equal(follows.length, 1);
    assert.equal(follows[0].args.sessionId, id);
    assert.ok(follows[0].args.afterSeq > 30, `after ${follows[0].args.afterSeq}`);
    assert.equal((await calls(page, 'open_session')).length, opensBefore + 1);
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('word299').waitFor();
    // Its end is taken in from message_stored: still that one read.
    assert.equal((await calls(page, 'open_session')).length, opensBefore + 1);
    assert.equal(await answer.getAttribute('data-status'), 'done');
  }));
