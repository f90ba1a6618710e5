// A 10,000-message session opens, stays a small DOM, and scrolls end to end.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setup } from './harness.mjs';

const withApp = setup({ before, after });

test('10,000 messages: virtualized, last message visible, first reachable', () =>
  withApp('big=10000', async ({ page }) => {
    const started = Date.now();
    await page.getByTestId('message-assistant').filter({ hasText: 'Answer #9999' }).waitFor();
    const opened = Date.now() - started;
    const nodes = await page.locator('[data-testid=transcript] [data-vkey]').count();
    assert.ok(nodes > 0 && nodes < 200, `rows in the DOM: ${nodes}`);
    const last = page.getByTestId('message-assistant').filter({ hasText: 'Answer #9999' });
    assert.ok(await last.isVisible());
    // At the latest message there is no "to the latest" button.
    assert.equal(await page.getByTestId('jump-bottom').count(), 0);
    // To the top and back to the bottom.
    await page.getByTestId('transcript').evaluate((el) => (el.scrollTop = 0));
    await page.getByTestId('message-user').filter({ hasText: 'Question #0' }).waitFor();
    await page.getByTestId('jump-bottom').click();
    await page.getByTestId('message-assistant').filter({ hasText: 'Answer #9999' }).waitFor();
    await page.waitForFunction(() => {
      const v = document.querySelector('[data-testid=transcript]');
      return v.scrollHeight - v.scrollTop - v.clientHeight < 4;
    });
    assert.ok(await last.isVisible());
    await page.getByTestId('jump-bottom').waitFor({ state: 'detached' });
    console.log(`# 10k session shown in ${opened} ms, ${nodes} rows in the DOM`);
  }));
