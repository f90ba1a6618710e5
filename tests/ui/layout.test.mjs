// The layout from 800×600 up: nothing spills sideways, every panel button
// and the composer stay in the window, a panel opens below the header
// (which stays usable), and the version is in Settings → About.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, launch, openApp, send, startServer, waitIdle } from './harness.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Where `testid` is on screen. */
const box = (page, testid) => page.getByTestId(testid).first().evaluate((el) => el.getBoundingClientRect().toJSON());

for (const [width, height] of [
  [800, 600],
  [1024, 700],
  // The desktop e2e tests' window.
  [1120, 740],
  [1280, 800],
  [1600, 900],
]) {
  test(`at ${width}×${height} everything is in the window and a panel leaves the header free`, async () => {
    const app = await openApp(browser, server.url, '', { viewport: { width, height } });
    try {
      const { page } = app;
      // A message, so the context meter is there too.
      await send(page, 'hello');
      await waitIdle(page);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(sideways, 0, 'no horizontal scroll');
      for (const p of ['models', 'tools', 'memory', 'profiles', 'settings', 'model-picker', 'composer-input', 'send-button', 'attach-button']) {
        const b = await box(page, p === 'model-picker' || p.includes('-') ? p : `open-${p}`);
        assert.ok(b.left >= 0 && b.right <= width && b.top >= 0 && b.bottom <= height, `${p} in the window: ${JSON.stringify(b)}`);
      }
      await page.getByTestId('open-settings').click();
      const panel = await box(page, 'panel-settings');
      const header = await page.locator('header.header').evaluate((el) => el.getBoundingClientRect().toJSON());
      assert.ok(panel.top >= header.bottom - 1, `the panel starts below the header (${panel.top} < ${header.bottom})`);
      // The header still works with the panel open: another panel opens from it.
      await page.getByTestId('open-memory').click();
      await page.getByTestId('panel-memory').waitFor();
      await page.getByTestId('open-settings').click();
      assert.equal(await page.getByTestId('version').innerText(), 'version 0.1.0');
      assert.equal(await page.locator('.side [data-testid=version]').count(), 0, 'not in the sidebar');
      await assertClean(app);
    } finally {
      await app.close();
    }
  });
}

test('a pull in the header gives way: at 1120×740 with the sidebar open every control stays in the window', async () => {
  const app = await openApp(browser, server.url, '', { viewport: { width: 1120, height: 740 } });
  try {
    const { page } = app;
    await send(page, 'hello');
    await waitIdle(page);
    await page.evaluate(() => { window.__hearthMock.pulls.held = true; });
    await page.getByTestId('open-models').click();
    await page.getByTestId('pull-name').fill('hf.co/bartowski/Qwen2.5-Coder-14B-Instruct-GGUF:Q4_K_M');
    await page.getByTestId('pull-button').click();
    await page.getByTestId('panel-close').click();
    const chip = page.getByTestId('pull-chip');
    await chip.waitFor();
    await page.waitForFunction(() => /left/.test(document.querySelector('[data-testid=pull-chip]')?.textContent ?? ''));
    for (const p of ['open-models', 'open-tools', 'open-memory', 'open-profiles', 'open-settings', 'model-picker']) {
      const b = await box(page, p);
      assert.ok(b.left >= 0 && b.right <= 1120, `${p} in the window with a pull going on: ${JSON.stringify(b)}`);
    }
    const title = await box(page, 'session-title');
    assert.ok(title.width >= 60, `the title keeps its room: ${JSON.stringify(title)}`);
    // What the chip cannot show is in its tooltip.
    assert.match(await chip.getAttribute('title'), /Qwen2\.5-Coder-14B.* left \(open Models\)$/);
    await page.evaluate(() => { window.__hearthMock.pulls.held = false; });
  } finally {
    await app.close();
  }
});

test("a message's actions are named icons, shown on hover, on focus and on the latest answer", async () => {
  const app = await openApp(browser, server.url, '');
  try {
    const { page } = app;
    await send(page, 'hello');
    await waitIdle(page);
    const answers = page.getByTestId('message-assistant');
    await answers.nth(1).waitFor();
    const shown = (el) => el.locator('.msg-actions').evaluate((a) => getComputedStyle(a).opacity);
    const first = answers.nth(0);
    await page.mouse.move(5, 5);
    assert.equal(await shown(first), '0', 'an earlier answer: hidden until pointed at');
    assert.equal(await shown(answers.nth(1)), '1', 'the latest answer: shown');
    await first.hover();
    assert.equal(await shown(first), '1');
    for (const id of ['copy-answer', 'regenerate-button', 'trace-toggle']) {
      const b = answers.nth(1).getByTestId(id);
      if ((await b.count()) === 0) continue;
      assert.equal((await b.innerText()).trim(), '', `${id} is an icon`);
      assert.ok((await b.getAttribute('aria-label'))?.length, `${id} has a name`);
    }
    // Reached by the keyboard: shown while one has the focus.
    await page.mouse.move(5, 5);
    await first.getByTestId('copy-answer').focus();
    assert.equal(await shown(first), '1');
    await assertClean(app);
  } finally {
    await app.close();
  }
});
