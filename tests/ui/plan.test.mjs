// The plan card of a live run: streamed by plan_delta, ticked off by
// plan_progress ("k of n done", done steps marked).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('plan streams in, then steps 1 and 2 are marked done', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.tickMs = 250));
    await send(page, 'plan it');
    // Seen partially while it streams.
    await page.waitForFunction(() => {
      const card = document.querySelector('[data-testid=plan-card]');
      return card && card.textContent.includes('Look') && !card.textContent.includes('Answer');
    });
    const card = page.getByTestId('plan-card');
    await card.getByTestId('plan-progress').filter({ hasText: '1 of 3 done' }).waitFor();
    await card.getByTestId('plan-progress').filter({ hasText: '2 of 3 done' }).waitFor();
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
  }));
