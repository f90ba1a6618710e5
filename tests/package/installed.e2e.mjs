// The app as the .deb installed it (/usr/bin/hearth-app), against
// hearth-sim, through tests/e2e/run.sh with a kept data folder. Phase
// `first` sends a message; phase `again` (after the package was removed
// and installed again) finds that conversation where the user left it:
// user data lives in the XDG folders, not in the package.
// Run by tests/package/run.sh.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { eventually, startApp, version } from '../e2e/support.mjs';

const phase = process.env.HEARTH_PACKAGE_PHASE;
const MESSAGE = 'hello from the installed package';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
});

test(`the installed app (${phase})`, async () => {
  assert.ok(phase === 'first' || phase === 'again', `HEARTH_PACKAGE_PHASE is ${phase}`);
  browser = await startApp();
  // The app has started, as this version (its number is in Settings → About).
  await eventually(browser, 'the window is this version', async () =>
    (await browser.$('[data-testid="app"]').getAttribute('data-version')) === version,
  );
  if (phase === 'first') {
    const input = browser.$('[data-testid="composer-input"]');
    await input.waitForEnabled({ timeout: 30_000 });
    await input.setValue(MESSAGE);
    await browser.$('[data-testid="send-button"]').click();
    await eventually(browser, 'the answer completes', async () =>
      browser.$('[data-testid="message-assistant"][data-status="done"]').isExisting(),
    );
    assert.equal(await browser.$('[data-testid="run-error"]').isExisting(), false);
  } else {
    // The last session opens again, with the message sent before the reinstall.
    await eventually(browser, 'the earlier conversation is back', async () => {
      for (const m of await browser.$$('[data-testid="message-user"]')) if ((await m.getText()).includes(MESSAGE)) return true;
      return false;
    });
    assert.ok(await browser.$('[data-testid="message-assistant"][data-status="done"]').isExisting());
  }
});
