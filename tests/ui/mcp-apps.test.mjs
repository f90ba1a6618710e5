// MCP apps (MCP Apps, SEP-1865; lib/mcpApps.ts, components/McpAppView.svelte,
// artifact/mcp-app.ts): an MCP tool call's app shows in its card, under
// its result, in the sandbox frame (the card opens for it), gets the call's input and result, resizes its frame,
// and reaches its server only through Hearth (`mcp_app_*`, mock/mcpApps.ts).
// A message it suggests goes into the composer, never sent; a refused call
// comes back to it as an error result. A hostile app reaches nothing: no
// request arrives at the server that served Hearth, the app page neither
// navigates nor opens a window, forged host messages change nothing, and
// the app page itself raises no CSP violation or error.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** What mock/mcpApps.ts's hostile app's requests would ask for. */
const HOSTILE_PATH = '/__mcp_hostile/';

/** The sandbox page's frame, and the app's frame inside it. */
const sandbox = (page) => page.frameLocator('[data-testid=mcp-app-frame]');
const inApp = (page) => sandbox(page).frameLocator('iframe');

/** Runs "mcp app <which>" in a new chat and waits for the answer to end and its app's region. */
async function showApp(page, which) {
  await page.getByTestId('new-session').click();
  await send(page, `mcp app ${which}`);
  await waitIdle(page);
  const region = page.getByTestId('mcp-app');
  await region.waitFor();
  // Nothing of the server's runs until the person asks for it.
  assert.equal(await region.getByTestId('mcp-app-frame').count(), 0, 'the app waits for the person');
  await region.getByTestId('mcp-app-show').click();
  return region;
}

/** The app frame's height in the page, once it is `height`. */
async function frameHeight(page, height) {
  await page.waitForFunction((h) => document.querySelector('[data-testid=mcp-app-frame]')?.getBoundingClientRect().height === h, height, { timeout: 10_000 });
}

test("an MCP tool's app shows in its card with the call's input and result, resizes, and its tool call reaches the server through Hearth", () =>
  withApp('', async ({ page }) => {
    const region = await showApp(page, 'counter');
    const app = inApp(page);
    await app.locator('#result', { hasText: 'The counter is at 5.' }).waitFor();
    // In the call's card, under its result (the card opened for it), named
    // for its server, saying what it may do.
    const card = page.locator('[data-testid=tool-card][data-tool=apps__show_counter]');
    assert.equal(await card.getAttribute('open'), '');
    assert.equal(await card.getByTestId('mcp-app').count(), 1);
    assert.equal(await card.getByTestId('tool-output').evaluate((el) => el.nextElementSibling?.getAttribute('data-testid')), 'mcp-app');
    assert.equal(await region.count(), 1);
    assert.equal(await region.getAttribute('aria-label'), 'App from the MCP server apps');
    assert.match(await region.getByTestId('mcp-app-note').textContent(), /sandboxed, with no network; Hearth asks you before every tool call it makes/);
    assert.equal(
      await region.getByTestId('mcp-app-domains').textContent(),
      'This app asked to reach https://cdn.example.com; Hearth gives apps no network access, so parts of it may not work.',
    );
    // The sandbox page in a frame with scripts only, the app in a frame of it with scripts only and no permission.
    const frame = region.getByTestId('mcp-app-frame');
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    assert.equal(await frame.getAttribute('referrerpolicy'), 'no-referrer');
    assert.equal(await frame.getAttribute('title'), 'App: show_counter from apps');
    assert.match(await frame.getAttribute('src'), /\/artifact\/mcp-app\.html$/);
    const inner = sandbox(page).locator('iframe');
    assert.equal(await inner.getAttribute('sandbox'), 'allow-scripts');
    assert.equal(await inner.getAttribute('allow'), null);
    assert.equal(await inner.getAttribute('title'), 'MCP app');
    // What the app was told: the host, the theme, the protocol, the call's input and result.
    assert.equal(await app.locator('#host').textContent(), 'Hearth');
    assert.equal(await app.locator('#theme').textContent(), 'light');
    assert.equal(await app.locator('#protocol').textContent(), '2026-01-26');
    assert.equal(await app.locator('#input').textContent(), '{"start":5}');

    // The frame takes the height the app reports, up to the bound.
    await app.locator('#height').filter({ hasNotText: 'none' }).waitFor();
    const reported = Number(await app.locator('#height').textContent());
    assert.ok(reported > 300 && reported < 1200, String(reported));
    await frameHeight(page, reported);
    await app.locator('#grow').click();
    await frameHeight(page, 1200);

    // A tool call: waiting for the person, said in the region; then its result back in the app.
    const runId = (await calls(page, 'mcp_app_view')).at(-1).args.runId;
    assert.ok(await page.evaluate((id) => window.__hearthMock.runs.has(id), runId), `the run ${runId}`);
    await page.evaluate(() => window.__hearthMock.mcpApps.holdCalls());
    await app.locator('#call').click();
    const calling = region.getByTestId('mcp-app-calling');
    await calling.waitFor();
    assert.equal(await calling.textContent(), 'The app asked to call increment…');
    assert.equal(await app.locator('#called').textContent(), 'waiting');
    await page.evaluate(() => window.__hearthMock.mcpApps.releaseCalls());
    await app.locator('#called', { hasText: 'ok: The counter is at 7.' }).waitFor();
    await calling.waitFor({ state: 'detached' });
    assert.deepEqual((await calls(page, 'mcp_app_call_tool')).map((c) => c.args), [{ runId, callId: 'call_counter', name: 'increment', input: { by: 2 } }]);

    // A resource of its server, a log line, and no context for the model.
    await app.locator('#read').click();
    await app.locator('#read-result', { hasText: 'Press Add 2 to add two.' }).waitFor();
    assert.deepEqual((await calls(page, 'mcp_app_read_resource')).map((c) => c.args), [{ runId, callId: 'call_counter', uri: 'ui://apps/help.txt' }]);
    await app.locator('#log').click();
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'mcp_app_log'));
    assert.deepEqual((await calls(page, 'mcp_app_log')).map((c) => c.args), [{ runId, callId: 'call_counter', level: 'info', text: 'counter clicked' }]);
    await app.locator('#context').click();
    await app.locator('#context-result').filter({ hasText: 'error:' }).waitFor();
    assert.match(await app.locator('#context-result').textContent(), /^error: Hearth does not pass an app's context to the model/);

    // Nothing serious for axe in the page with the app.
    await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    assert.deepEqual(r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);

    // The theme switched: the app is told.
    await page.getByTestId('open-settings').click();
    await page.getByTestId('theme-dark').click();
    await page.keyboard.press('Escape');
    await app.locator('#theme', { hasText: 'dark' }).waitFor();
  }));

test('a message the app suggests goes into the composer after what is typed, and nothing is sent', () =>
  withApp('', async ({ page }) => {
    await showApp(page, 'counter');
    const app = inApp(page);
    await app.locator('#result', { hasText: 'The counter is at 5.' }).waitFor();
    const sent = (await calls(page, 'send_message')).length;
    const input = page.getByTestId('composer-input');
    await input.fill('Hi there');
    await app.locator('#message').click();
    await app.locator('#message-result', { hasText: 'ok' }).waitFor();
    assert.equal(await input.inputValue(), 'Hi there\n\nPlease add 2 to the counter.');
    await page.getByTestId('toast-text').filter({ hasText: 'The app apps put a message in the composer: read it, then send it if you want.' }).waitFor();
    assert.equal((await calls(page, 'send_message')).length, sent, 'nothing was sent');
    assert.equal(await page.getByTestId('send-button').isVisible(), true);
    // A message with hidden characters is refused, and the composer keeps what it had.
    await app.locator('#message-hidden').click();
    await app.locator('#message-hidden-result').filter({ hasText: 'error:' }).waitFor();
    assert.match(await app.locator('#message-hidden-result').textContent(), /invisible or direction-changing characters/);
    assert.equal(await input.inputValue(), 'Hi there\n\nPlease add 2 to the counter.');
  }));

test('a tool call the person refuses comes back to the app as an error result', () =>
  withApp('', async ({ page }) => {
    const region = await showApp(page, 'counter');
    const app = inApp(page);
    await app.locator('#result', { hasText: 'The counter is at 5.' }).waitFor();
    await page.evaluate(() => {
      window.__hearthMock.mcpApps.refuse = true;
    });
    await app.locator('#call').click();
    await app.locator('#called').filter({ hasText: 'refused:' }).waitFor();
    assert.equal(await app.locator('#called').textContent(), 'refused: you did not allow the app to call `increment`, so it was not called');
    assert.equal(await region.getByTestId('mcp-app-calling').count(), 0);
    assert.equal(await page.evaluate(() => window.__hearthMock.mcpApps.count), 5, 'the tool did not run');
  }));

test('a hostile app reaches nothing: no request, no navigation, no window, forged messages change nothing, no CSP violation in the app page', () =>
  withApp(
    '',
    async ({ page }) => {
      const start = page.url();
      const region = await showApp(page, 'hostile');
      const app = inApp(page);
      await app.locator('#done', { hasText: 'done' }).waitFor({ timeout: 15_000 });
      const tried = Object.fromEntries(
        await app.locator('#tried li').evaluateAll((lis) => lis.map((li) => [li.dataset.attempt, li.textContent.slice(li.dataset.attempt.length + 2)])),
      );
      // What the app itself could tell: all refused.
      assert.equal(tried.fetch, 'blocked');
      assert.equal(tried.img, 'blocked');
      assert.equal(tried['window.open'], 'blocked');
      assert.equal(tried['read the app page'], 'blocked');
      assert.equal(tried['write the sandbox page'], 'blocked');
      assert.equal(tried['set a global of the app page'], 'blocked');
      assert.match(tried['tools/call'], /^refused: the app cannot call `delete_everything`/);
      for (const name of ['top navigation', 'forged messages', 'form', 'javascript link', 'top link']) assert.ok(name in tried, `${name} was tried`);
      // The page it sent the sandbox did not replace it.
      assert.equal(await app.locator('h1').textContent(), 'Hostile app');
      // The person's clicks (user activation) open nothing, navigate nothing.
      await app.locator('#open').click();
      await app.locator('li[data-attempt="window.open on a click"]').waitFor();
      assert.equal(await app.locator('li[data-attempt="window.open on a click"]').textContent(), 'window.open on a click: blocked');
      for (const id of ['#top', '#js']) await app.locator(id).click();
      // Last, a refresh that would take the app's page elsewhere: the
      // sandbox page's CSP refuses it (the harness's init script keeps
      // each frame's CSP reports, the sandbox page's too).
      const sandboxPage = page.frames().find((f) => f.url().endsWith('/artifact/mcp-app.html'));
      assert.ok(sandboxPage, 'the sandbox page is a frame of the app page');
      await app.locator('#refresh').click();
      await sandboxPage.waitForFunction(() => window.__csp.some((c) => c.startsWith('frame-src ')), null, { timeout: 10_000 });

      // Nothing reached the server that served Hearth (a round trip after the last attempt).
      await fetch(new URL('/favicon.ico', start));
      assert.deepEqual(withApp.seen().filter((p) => p.startsWith(HOSTILE_PATH)), []);
      // The app page is where it was, alone, untouched.
      assert.equal(page.url(), start);
      assert.equal(page.context().pages().length, 1, 'no window was opened');
      assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined');
      // The forged messages changed nothing: the app's page was not swapped, no
      // result or message was taken, only its one tool call was asked.
      assert.equal(await region.count(), 1);
      assert.equal(await page.getByText('pwned').count(), 0);
      assert.equal(await page.getByTestId('composer-input').inputValue(), '');
      assert.equal(await page.getByTestId('toast').count(), 0);
      assert.deepEqual((await calls(page, 'mcp_app_call_tool')).map((c) => c.args.name), ['delete_everything']);
      assert.deepEqual(await calls(page, 'mcp_app_log'), []);
      assert.deepEqual(await calls(page, 'mcp_app_open_link'), []);
      assert.deepEqual(await calls(page, 'open_link'), []);
      // The result was not kept: the region says so.
      assert.equal(await region.getByTestId('mcp-app-view-note').textContent(), 'The result was too large to keep (over 1 MB).');
    },
    // The app's frames log what their CSP and sandbox refused; the app page must log nothing.
    { frames: false },
  ));

test('a tool call without an app shows no app; a failing app says why under its card', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'mcp down please');
    await waitIdle(page);
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'mcp_app_view' && c.args.callId === 'call_echo'));
    // The next call has an app: once it shows, the first one's answer (none) came long before.
    await send(page, 'mcp app counter');
    await waitIdle(page);
    await page.getByTestId('mcp-app').waitFor();
    assert.equal(await page.getByTestId('mcp-app').count(), 1);
    const echo = page.locator('[data-testid=tool-card][data-tool=everything__echo]');
    assert.equal(await echo.getByTestId('mcp-app').count(), 0);
    assert.equal(await echo.getAttribute('open'), null, 'the card stays closed');

    // The server cannot give the app: a short note where it would be, no frame.
    await page.evaluate(() => {
      window.__hearthMock.mcpApps.viewError = 'the MCP server "apps" is not running';
    });
    await send(page, 'mcp app counter');
    await waitIdle(page);
    const failed = page.getByTestId('mcp-app-error');
    await failed.waitFor();
    assert.equal(await failed.textContent(), 'The app could not be shown: the MCP server "apps" is not running');
    assert.equal(await page.getByTestId('mcp-app').last().getAttribute('aria-label'), 'App from the MCP server apps');
    assert.equal(await page.getByTestId('mcp-app').last().getByTestId('mcp-app-frame').count(), 0);
  }));
