// Stored sub-agent transcripts (SessionView.subagents) nest under their
// spawn_agent cards when a session is opened, at any depth.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setup } from './harness.mjs';

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
