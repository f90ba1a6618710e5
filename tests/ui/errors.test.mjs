// Clear states: Ollama unreachable, model not pulled, a failed run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('unreachable Ollama: banner with URL, how to start it, retry, change URL', () =>
  withApp('unreachable=1', async ({ page }) => {
    const banner = page.getByTestId('backend-banner');
    await banner.waitFor();
    assert.equal(await banner.getByTestId('backend-url').textContent(), 'http://127.0.0.1:11434');
    assert.match(await banner.textContent(), /ollama serve/);
    await banner.getByTestId('backend-retry').click();
    await page.waitForFunction(() => window.__hearthMock.calls.filter((c) => c.cmd === 'backend_status').length >= 2);
    await banner.waitFor();
    // Sending fails with backend_unreachable, shown in place.
    await send(page, 'hello');
    await page.locator('[data-testid=run-error][data-code=backend_unreachable]').waitFor();
    await banner.getByTestId('backend-url-input').fill('http://10.0.0.2:11434');
    await banner.getByTestId('backend-url-save').click();
    await banner.waitFor({ state: 'detached' });
    assert.equal((await calls(page, 'set_ollama_url'))[0].args.url, 'http://10.0.0.2:11434');
  }));

test('model not pulled: the exact ollama pull command and a Pull button', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'notfound');
    const card = page.locator('[data-testid=run-error][data-code=model_not_found]');
    await card.waitFor();
    await waitIdle(page);
    // Nothing was written: the card is the answer, its Trace under it,
    // not alone above it (user pass 2026-12, defect 21).
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByTestId('trace-toggle').waitFor();
    assert.equal(
      await answer.evaluate((a) => {
        const shown = a.querySelector('[data-testid=run-error]');
        const trace = a.querySelector('[data-testid=trace-toggle]');
        return Boolean(shown && trace && shown.compareDocumentPosition(trace) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
      true,
      'the Trace button comes after the card',
    );
    assert.equal(await card.getByTestId('pull-command').textContent(), 'ollama pull ghost:7b');
    // Said once, with the name as code, not raw backticks; and the models
    // the server has are offered beside the pull (defect 20).
    assert.equal(await card.getByTestId('error-message').textContent(), 'ghost:7b is not installed on this server.');
    assert.equal(await card.getByTestId('error-message').locator('code').textContent(), 'ghost:7b');
    const offered = await card.getByTestId('use-model').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-model')));
    assert.ok(offered.length >= 1 && !offered.includes('ghost:7b'), `offered: ${offered}`);
    await card.locator(`[data-testid=use-model][data-model="${offered[0]}"]`).click();
    await card.getByTestId('model-chosen').filter({ hasText: `This chat now uses ${offered[0]}` }).waitFor();
    assert.equal((await calls(page, 'set_session_model'))[0].args.model, offered[0]);
    await card.getByTestId('pull-button').click();
    await card.getByTestId('pull-status').filter({ hasText: 'ghost:7b is installed' }).waitFor();
    assert.equal((await calls(page, 'start_pull'))[0].args.model, 'ghost:7b');
  }));

test('failed run keeps its partial text; Retry regenerates with message_id null', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'fail now');
    const card = page.locator('[data-testid=run-error][data-code=stream_truncated]');
    await card.waitFor();
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    assert.match(await answer.textContent(), /This answer will break in the mid/);
    await answer.getByTestId('retry-button').click();
    await page.locator('[data-testid=run-error]').first().waitFor();
    const regen = await calls(page, 'regenerate');
    assert.equal(regen.length, 1);
    assert.equal(regen[0].args.messageId, null);
    await waitIdle(page);
  }));

test('an answer that broke off because the server died shows the banner at once', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.tickMs = 300));
    await send(page, 'fail now');
    // The server dies while it answers, and the answer breaks off.
    await page.getByTestId('message-assistant').last().getByText(/This answer/).waitFor();
    await page.evaluate(() => (window.__hearthMock.config.reachable = false));
    const before = (await calls(page, 'backend_status')).length;
    await page.locator('[data-testid=run-error][data-code=stream_truncated]').waitFor();
    await page.getByTestId('backend-banner').waitFor();
    assert.ok((await calls(page, 'backend_status')).length > before, 'asked at the break-off');
    await waitIdle(page);
  }));

test('what a failed answer offers follows its recovery: a setting opens its panel, none offers no Retry', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'limit please');
    const card = page.locator('[data-testid=run-error][data-recovery=fix_config]');
    await card.waitFor();
    await waitIdle(page);
    await card.getByTestId('retry-button').waitFor();
    assert.equal(await card.getByTestId('fix-config').getAttribute('data-panel'), 'profiles');
    await card.getByTestId('fix-config').click();
    await page.getByTestId('panel-profiles').waitFor();
    await page.getByTestId('panel-close').click();
    await page.getByTestId('panel-profiles').waitFor({ state: 'detached' });

    await send(page, 'repeat please');
    const stuck = page.locator('[data-testid=run-error][data-code=repeated_tool_calls]');
    await stuck.waitFor();
    await waitIdle(page);
    assert.equal(await stuck.getAttribute('data-recovery'), 'none');
    assert.equal(await stuck.getByTestId('retry-button').count(), 0);
    assert.equal(await stuck.getByTestId('fix-config').count(), 0);
  }));

test('a server to start: said once, the banner checks, and the card follows the server back', () =>
  withApp('unreachable=1', async ({ page }) => {
    const banner = page.getByTestId('backend-banner');
    await banner.waitFor();
    await send(page, 'hello');
    const card = page.locator('[data-testid=run-error][data-recovery=start_server]');
    await card.waitFor();
    await waitIdle(page);
    // Said once (defect 18): the banner's headline, not again under it; the
    // card without the system's own words; one button to check, named for it.
    assert.equal(await banner.getByTestId('backend-error').count(), 0);
    assert.equal(await card.getByTestId('error-message').textContent(), 'cannot reach the model server at http://127.0.0.1:11434: is it running?');
    assert.match(await card.getByTestId('server-hint').textContent(), /banner above says how to start it/);
    assert.equal(await card.getByTestId('recheck-server').count(), 0);
    // Named for what it does ("Checking…" while the banner's own check runs).
    assert.match(await banner.getByTestId('backend-retry').textContent(), /^(Check now|Checking…)$/);
    // The server comes back (the banner finds it by itself, every 3 s): the
    // card no longer points at a banner that is gone.
    await page.evaluate(() => (window.__hearthMock.config.reachable = true));
    await banner.waitFor({ state: 'detached' });
    await card.getByTestId('server-hint').filter({ hasText: 'answers again' }).waitFor();
    await card.getByTestId('retry-button').waitFor();
  }));

test('a core speaking another wire format is said once, and the answer still shows', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => (window.__hearthMock.config.protocol = 99));
    await send(page, 'hello');
    await waitIdle(page);
    const warnings = page.getByTestId('toast').filter({ hasText: 'the core speaks 99' });
    await warnings.waitFor();
    await send(page, 'hello again');
    await waitIdle(page);
    assert.equal(await warnings.count(), 1);
    assert.match(await warnings.textContent(), /wire format 1/);
    assert.equal(await page.getByTestId('message-assistant').count(), 2);
  }));

test('the banner goes by itself once an answer shows the server is back', () =>
  withApp('unreachable=1', async ({ page }) => {
    const banner = page.getByTestId('backend-banner');
    await banner.waitFor();
    const checks = (await calls(page, 'backend_status')).length;
    // Ollama was started meanwhile; nobody pressed Retry.
    await page.evaluate(() => (window.__hearthMock.config.reachable = true));
    await page.getByTestId('new-session').click();
    await send(page, 'hello');
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().getByText('Hello from').waitFor();
    await banner.waitFor({ state: 'detached' });
    assert.ok((await calls(page, 'backend_status')).length > checks);
  }));
