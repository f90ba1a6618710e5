// The plan card: streamed by plan_delta, ticked off by plan_progress ("k
// of n done", done steps marked); the stored answer keeps it, also when the
// app opens it after a restart (from the events the core kept with the run).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, stepAll, stepUntil, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('plan streams in, then steps 1 and 2 are marked done', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    // Stepped: each state is held until the test has seen it (with a
    // timer, "3 steps" lasted one tick, and a loaded machine missed it).
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'plan it');
    const card = page.getByTestId('plan-card');
    // Seen partially while it streams.
    await stepUntil(page, 'plan_delta');
    await page.waitForFunction(() => {
      const card = document.querySelector('[data-testid=plan-card]');
      return card && card.textContent.includes('Look') && !card.textContent.includes('Answer');
    });
    // Before any step is marked, it counts them rather than say "0 done".
    await stepUntil(page, 'plan_ready');
    await card.getByTestId('plan-progress').filter({ hasText: /^3 steps$/ }).waitFor();
    await stepUntil(page, 'plan_progress');
    await card.getByTestId('plan-progress').filter({ hasText: '1 of 3 done' }).waitFor();
    await stepUntil(page, 'plan_progress');
    await card.getByTestId('plan-progress').filter({ hasText: '2 of 3 done' }).waitFor();
    await stepAll(page);
    const steps = card.getByTestId('plan-step');
    const texts = await steps.allTextContents();
    assert.equal(texts.length, 3);
    assert.match(texts[0], /^✓1\. Look around/);
    assert.match(texts[1], /^✓2\. Check the files/);
    assert.equal(texts[2], '3. Answer');
    assert.deepEqual(await steps.evaluateAll((els) => els.map((e) => e.dataset.done)), ['true', 'true', 'false']);
    // Collapsible like the other cards.
    await card.locator('summary').click();
    assert.equal(await card.evaluate((d) => d.open), false);
    await waitIdle(page);
    // Stored, the answer still starts with the card (not a bare numbered list), its steps as marked.
    const stored = page.getByTestId('message-assistant').last();
    await stored.getByTestId('plan-card').getByTestId('plan-progress').filter({ hasText: '2 of 3 done' }).waitFor();
    assert.deepEqual(await stored.getByTestId('plan-step').evaluateAll((els) => els.map((e) => e.dataset.done)), ['true', 'true', 'false']);
    assert.equal(await stored.locator('[data-testid=markdown] ol').count(), 0, 'the plan is not rendered again as Markdown');
  }));

test('a stored planned answer opened after a restart shows its plan, reasoning time, tool times, the approval and the speed', () =>
  withApp('planned=1', async ({ page }) => {
    await page.getByTestId('session-item').filter({ hasText: 'Planned work' }).getByTestId('session-open').click();
    const answer = page.getByTestId('message-assistant').last();
    const card = answer.getByTestId('plan-card');
    await card.waitFor();
    assert.equal(await card.getByTestId('plan-progress').textContent(), '2 of 2 done');
    assert.deepEqual(await card.getByTestId('plan-step').allTextContents(), ['✓1. Read notes.md (done)', '✓2. Write summary.md (done)']);
    const read = answer.locator('[data-testid=tool-card][data-tool=read_file]');
    assert.equal(await read.getByTestId('tool-duration').textContent(), '120 ms');
    const write = answer.locator('[data-testid=tool-card][data-tool=write_file]');
    assert.equal(await write.getByTestId('approval-decision').textContent(), 'you allowed once');
    assert.equal(await write.getByTestId('tool-duration').textContent(), '45 ms');
    assert.match(await answer.getByTestId('usage').textContent(), /tok\/s/);
    assert.equal(await answer.getByTestId('answer-model').textContent(), 'qwen3:8b');
    await answer.getByText('The summary is in summary.md.').waitFor();
    assert.equal(await answer.getByTestId('thinking-summary').textContent(), 'Thought for 3.1 s');
    // What memory learned from it is said again under the conversation, with its Undo.
    const learned = page.getByTestId('memory-note').getByTestId('memory-learned');
    await learned.waitFor();
    assert.match(await learned.textContent(), /The user prefers Rust\./);
    assert.equal(await learned.getAttribute('data-id'), '1');
    // Another session has no such line; back here, it is there again.
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('memory-note').waitFor({ state: 'detached' });
    await page.getByTestId('session-item').filter({ hasText: 'Planned work' }).getByTestId('session-open').click();
    await learned.waitFor();
    // Undone, it does not come back.
    await learned.getByTestId('memory-undo').click();
    await learned.filter({ hasText: 'Forgotten: The user prefers Rust.' }).waitFor();
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Welcome' }).waitFor();
    const asked = (await calls(page, 'list_memories')).length;
    await page.getByTestId('session-item').filter({ hasText: 'Planned work' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Planned work' }).waitFor();
    await answer.getByText('The summary is in summary.md.').waitFor();
    // Memory was asked which facts it still holds (the line waits on that).
    await page.waitForFunction(
      (n) => window.__hearthMock.calls.filter((x) => x.cmd === 'list_memories').length > n,
      asked,
      { timeout: 10_000 },
    );
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => window.__hearthMock.memories.items.find((m) => m.id === 1)?.deleted ?? false), true);
    assert.equal(await page.getByTestId('memory-note').count(), 0);
  }));
