// The desktop shell in a real WebKitGTK webview, driven through tauri-driver:
// it starts, shows its version, and its capability gates the IPC.
// Run it with tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, startApp, textOf, version } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

before(async () => {
  browser = await startApp();
});

after(async () => {
  await browser?.deleteSession();
});

test('Settings → About shows "version <Cargo version>"', async () => {
  assert.ok(browser);
  assert.equal(await browser.getTitle(), 'Hearth');
  const expected = `version ${version}`;
  const settings = browser.$('[data-testid="open-settings"]');
  await settings.waitForClickable({ timeout: 30_000 });
  // The header fits the window: its last button is whole, nothing spills sideways.
  const fits = await browser.execute(() => {
    const b = document.querySelector('[data-testid="open-settings"]').getBoundingClientRect();
    return { right: b.right, width: window.innerWidth, spill: document.documentElement.scrollWidth - document.documentElement.clientWidth };
  });
  assert.ok(fits.right <= fits.width && fits.spill === 0, JSON.stringify(fits));
  await settings.click();
  await eventually(browser, `About says "${expected}"`, async () => {
    const seen = await textOf(browser, '[data-testid="version"]');
    return seen === expected ? seen : false;
  });
});

test('the capability denies commands it does not grant', async () => {
  assert.ok(browser);
  const call = (cmd) =>
    browser.executeAsync((name, done) => {
      window.__TAURI_INTERNALS__.invoke(name).then(
        (value) => done({ ok: true, value: JSON.stringify(value) }),
        (error) => done({ ok: false, value: String(error) }),
      );
    }, cmd);
  // Compiled in but not granted: the core `app` plugin, the store plugin
  // (the UI reaches preferences only through Hearth's commands), and the
  // notification, window-state and dialog plugins, which only Rust uses (a
  // page that could notify could put any words on the desktop; one that
  // could open a Save dialog could ask the person for any path).
  for (const cmd of ['plugin:app|version', 'plugin:store|load', 'plugin:notification|notify', 'plugin:window-state|save_window_state', 'plugin:dialog|save', 'plugin:dialog|open', 'plugin:dialog|message']) {
    const outcome = await call(cmd);
    assert.equal(outcome.ok, false, `${cmd} was allowed: ${outcome.value}`);
    assert.match(outcome.value, /not allowed|not found/);
  }
  // Granted: one of Hearth's own.
  const granted = await call('app_version');
  assert.equal(granted.ok, true, granted.value);
  assert.equal(granted.value, JSON.stringify(version));
});
