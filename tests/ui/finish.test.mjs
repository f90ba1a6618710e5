// The end of a run does not read the session again: the page takes in
// what the run stored (message_stored) and what it switched
// (profile_switched), so the cost of a turn does not grow with the
// history. What it shows then is what a fresh read of the session shows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, stepAll, stepUntil, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** What the transcript shows: each row's text and stored id, in order. */
async function transcript(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid=user-row], [data-testid=message-assistant], [data-testid=switch-divider]')].map((el) => ({
      id: el.getAttribute('data-message-id'),
      text: el.textContent.replace(/\s+/g, ' ').trim(),
    })),
  );
}

/** Opens the session `id` from the sidebar (a fresh read). */
async function reopen(page, id) {
  await page.getByTestId('new-session').click();
  await page.getByTestId('transcript-empty').waitFor();
  await page.locator(`[data-testid=session-item][data-session-id="${id}"] [data-testid=session-open]`).click();
  await page.getByTestId('user-row').first().waitFor();
}

test('finishing runs does not read the session again; what it shows is what a fresh read shows', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'hello');
    await waitIdle(page);
    const [{ args }] = await calls(page, 'send_message');
    const readsOf = async () => (await calls(page, 'open_session')).filter((c) => c.args.sessionId === args.sessionId).length;
    const reads = await readsOf();

    // Tools with a sub-agent, a profile switch by a tool, an answer given
    // again (a fork): none of them reads the session when it ends.
    await send(page, 'tools please');
    await waitIdle(page);
    await page.getByTestId('subagent').getByText('Sub-agent summary text.').waitFor();
    await send(page, 'switch to Agent');
    await waitIdle(page);
    await page.getByTestId('switch-divider').filter({ hasText: 'Agent' }).waitFor();
    assert.equal(await page.getByTestId('current-profile').textContent(), 'Agent');
    // The switch shows after the answer it happened in, which stays one row
    // with the switch_profile card filled in.
    const rows = await transcript(page);
    assert.match(rows.at(-2).text, /switch_profile done.*Now answering as Agent\./);
    assert.equal(rows.at(-1).text, 'Switched to Agent');
    await page.getByTestId('regenerate-button').last().click();
    await waitIdle(page);
    assert.equal(await page.getByTestId('message-assistant').last().getByTestId('branch-position').textContent(), '2/2');
    assert.equal(await readsOf(), reads, 'no read after any of the runs');

    // Every row carries the id the store gave it, and the page shows what
    // a fresh read shows.
    const patched = await transcript(page);
    assert.ok(patched.filter((r) => r.id !== null).every((r) => Number(r.id) > 0));
    await reopen(page, args.sessionId);
    assert.equal(await readsOf(), reads + 1);
    await page.getByTestId('subagent').getByText('Sub-agent summary text.').waitFor();
    assert.deepEqual(await transcript(page), patched);
  }));

test('a stopped answer is taken in as stored: interrupted, with its id, no read', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'slow please');
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('word3').waitFor();
    const reads = (await calls(page, 'open_session')).length;
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
    await answer.getByTestId('stopped-badge').waitFor();
    assert.equal((await calls(page, 'open_session')).length, reads);
    const stored = await page.evaluate(() => [...window.__hearthMock.messages.values()].filter((m) => m.status === 'interrupted').map((m) => String(m.id)));
    assert.equal(stored.length, 1);
    assert.equal(await answer.getAttribute('data-message-id'), stored[0]);
  }));

test('each answer names its model and host; one a crash cut off says so, not "stopped"', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'slow please');
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('word3').waitFor();
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
    await answer.getByTestId('stopped-badge').waitFor();
    // Named as soon as it ended, before the store is read again (user pass
    // 2026-12, defect 31).
    assert.equal(await answer.getByTestId('answer-host').textContent(), 'on Ollama');
    const model = await answer.getByTestId('answer-model').textContent();
    assert.ok(model.length > 0);
    // The core's recovery marks a run a dead process left open as cut off.
    const [{ args }] = await calls(page, 'send_message');
    await page.evaluate((sid) => {
      for (const r of window.__hearthMock.runs.values()) if (r.session === sid) r.cutOff = true;
    }, args.sessionId);
    await reopen(page, args.sessionId);
    const stored = page.getByTestId('message-assistant').last();
    await stored.getByTestId('cut-off-badge').waitFor();
    assert.equal(await stored.getByTestId('stopped-badge').count(), 0);
    assert.equal(await stored.getByTestId('answer-model').textContent(), model);
    assert.equal(await stored.getByTestId('answer-host').getAttribute('data-host'), 'ollama');
  }));

test('a switch seen in a snapshot and again in the replayed run is marked once', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'hello');
    await waitIdle(page);
    const [{ args }] = await calls(page, 'send_message');
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'switch to Agent');
    // Step until the tool's switch is out; the store has marked it.
    await stepUntil(page, 'profile_switched');
    // Away and back mid-run: the snapshot holds the switch, the replayed
    // log holds it too.
    await reopen(page, args.sessionId);
    await stepAll(page);
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().getByText('Now answering as Agent.').waitFor();
    assert.equal(await page.getByTestId('switch-divider').count(), 1);
  }));
