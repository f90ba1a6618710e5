// The desktop shell in a real WebKitGTK webview, driven through tauri-driver.
// Run it with tests/e2e/run.sh, which starts Xvfb and tauri-driver and sets
// HEARTH_APP, HEARTH_VERSION, HEARTH_E2E_PORT and HEARTH_SCREENSHOT.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { remote } from 'webdriverio';

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run this test through tests/e2e/run.sh`);
  }
  return value;
}

const app = required('HEARTH_APP');
const version = required('HEARTH_VERSION');
const port = Number(required('HEARTH_E2E_PORT'));
const screenshot = required('HEARTH_SCREENSHOT');

/** Captures the whole virtual screen (the app's real window) with ImageMagick. */
function captureScreen(file) {
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('import', ['-window', 'root', file], { timeout: 15_000 });
}

/**
 * Whether the window's area in a screenshot holds more than one flat colour.
 * The DOM can be complete before WebKit paints the window, so a capture
 * taken right away may show the blank webview.
 * Uses /usr/bin/convert: /usr/local/bin/convert may be a stand-in.
 */
function windowIsPainted(file, rect) {
  const geometry = `${rect.width}x${rect.height}+${Math.max(0, rect.x)}+${Math.max(0, rect.y)}`;
  const out = execFileSync(
    '/usr/bin/convert',
    [file, '-crop', geometry, '+repage', '-format', '%[fx:standard_deviation]', 'info:'],
    { timeout: 15_000, encoding: 'utf8' },
  );
  return Number(out.trim()) > 0.01;
}

/** Waits until the window shows on screen, then saves the screenshot. */
async function captureWindow(file) {
  const rect = await browser.getWindowRect();
  let painted = false;
  const deadline = Date.now() + 15_000;
  while (!painted && Date.now() < deadline) {
    captureScreen(file);
    painted = windowIsPainted(file, rect);
    if (!painted) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  assert.ok(painted, `the window at ${JSON.stringify(rect)} stayed blank on screen (see ${file})`);
}

/** @type {import('webdriverio').Browser | undefined} */
let browser;

before(async () => {
  browser = await remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'warn',
    connectionRetryTimeout: 60_000,
    connectionRetryCount: 0,
    capabilities: {
      // WebKitWebDriver speaks classic WebDriver only.
      'wdio:enforceWebDriverClassic': true,
      'tauri:options': { application: app },
    },
  });
});

after(async () => {
  await browser?.deleteSession();
});

test('the window shows "version <Cargo version>"', async () => {
  assert.ok(browser);
  const expected = `version ${version}`;
  const element = browser.$('[data-testid="version"]');
  let seen = '';
  try {
    await browser.waitUntil(
      async () => {
        seen = (await element.isExisting()) ? (await element.getText()).trim() : '<no element>';
        return seen === expected;
      },
      { timeout: 20_000, interval: 200 },
    );
  } catch {
    // Keep what the window showed for whoever debugs the failure.
    captureScreen(screenshot.replace(/\.png$/, '.failure.tmp.png'));
    assert.fail(`expected "${expected}", the window shows "${seen}"`);
  }
  // What the DOM says must also be what the user sees.
  await captureWindow(screenshot);
});

test('the page has the title and says the chat UI comes later', async () => {
  assert.ok(browser);
  assert.equal(await browser.getTitle(), 'Hearth');
  assert.equal(await browser.$('h1').getText(), 'Hearth');
  assert.match(await browser.$('[data-testid="note"]').getText(), /chat UI comes in a later release/);
});

test('the capability denies commands it does not grant', async () => {
  assert.ok(browser);
  // The core `app` plugin is compiled in but not granted to the window.
  const outcome = await browser.executeAsync((done) => {
    window.__TAURI_INTERNALS__.invoke('plugin:app|version').then(
      (value) => done({ ok: true, value: String(value) }),
      (error) => done({ ok: false, value: String(error) }),
    );
  });
  assert.equal(outcome.ok, false, `plugin:app|version was allowed: ${outcome.value}`);
  assert.match(outcome.value, /not allowed/);
});
