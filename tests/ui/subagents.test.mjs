// Stored sub-agent transcripts (SessionView.subagents) nest under their
// spawn_agent cards when a session is opened, at any depth; live and stored
// sub-agents are found by their parent's run as well as the call id (ids
// repeat across runs and sub-agents).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, stepAll, stepUntil, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('opening a session renders its sub-agents under the stored spawn_agent cards', () =>
  withApp('subagents=1', async ({ page }) => {
    await page.getByTestId('session-item').filter({ hasText: 'Research' }).getByTestId('session-open').click();
    await page.getByTestId('message-assistant').getByText('The docs say hi.').waitFor();
    const spawn = page.locator('[data-testid=message-assistant] [data-testid=tool-card][data-tool=spawn_agent]').first();
    const sub = spawn.getByTestId('subagent').first();
    await sub.getByText('Docs read: they say hi.').waitFor();
    assert.match(await sub.getByTestId('thinking').first().textContent(), /Start with the index/);
    const read = sub.locator('[data-testid=tool-card][data-tool=read_file]');
    assert.equal(await read.getAttribute('data-outcome'), 'ok');
    assert.equal(await read.getByTestId('tool-output').textContent(), '# Index: hi');
    // One level deeper: the sub-agent's own spawn_agent holds its sub-agent.
    const deep = sub.locator('[data-testid=tool-card][data-tool=spawn_agent] [data-testid=subagent]');
    await deep.getByText('All links work.').first().waitFor();
    assert.equal(await deep.locator('[data-testid=tool-card][data-tool=run_shell]').getAttribute('data-outcome'), 'error');
    // The tasks are the cards' arguments, not user bubbles.
    assert.equal(await page.getByTestId('message-user').filter({ hasText: 'read the docs' }).count(), 0);
  }));

test('a sub-agent whose own spawn_agent repeats its parent call id nests under its own card, live and stored', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    // Stepped: the live view is checked with the run held right after the
    // outer sub-agent's result (the second tool_event), not raced against
    // the answer's end (at a tick of 150 ms it ended 600 ms later, and a
    // loaded machine read the live message after it was gone, CI 2026-12-07).
    await page.evaluate(() => (window.__hearthMock.config.stepped = true));
    await send(page, 'deep please');
    await stepUntil(page, 'tool_event'); // the inner sub-agent's result, to the outer one
    await stepUntil(page, 'tool_event'); // the outer sub-agent's result, to the run
    const check = async (scope) => {
      const outer = scope.locator('[data-testid=tool-card][data-tool=spawn_agent]').first().getByTestId('subagent').first();
      await outer.getByText('Outer agent text.').waitFor();
      const inner = outer.locator('[data-testid=tool-card][data-tool=spawn_agent] [data-testid=subagent]');
      await inner.getByText('Inner agent text.').waitFor();
      assert.equal(await inner.getByText('Outer agent text.').count(), 0);
      // Each sub-agent's final text is shown once: its result, the same
      // text, is not printed again under it.
      await scope.getByTestId('tool-output-repeated').nth(1).waitFor();
      assert.equal(await outer.getByText('Inner agent text.').count(), 1);
      assert.equal(await scope.getByText('Outer agent text.').count(), 1);
    };
    await check(page.locator('[data-testid=message-assistant][data-live=true]'));
    await stepAll(page);
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().getByText('Deep work done.').waitFor();
    await check(page.getByTestId('message-assistant').last());
  }));

test('stored sub-agents of different runs with the same call id each stay with their own answer', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'twin alpha');
    await waitIdle(page);
    await send(page, 'twin beta');
    await waitIdle(page);
    const answers = page.getByTestId('message-assistant');
    await answers.nth(1).getByText('Twin beta done.').waitFor();
    const sub = (i) => answers.nth(i).locator('[data-testid=tool-card][data-tool=spawn_agent] [data-testid=subagent]');
    assert.match(await sub(0).textContent(), /Twin says alpha\./);
    assert.match(await sub(1).textContent(), /Twin says beta\./);
  }));
