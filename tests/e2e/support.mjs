// Shared by the desktop end-to-end tests: the WebDriver session on the real
// app (through tauri-driver), screenshots of the virtual screen, and the
// simulator's counters. tests/e2e/run.sh sets the environment.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { remote } from 'webdriverio';

export function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run this test through tests/e2e/run.sh`);
  }
  return value;
}

export const app = required('HEARTH_APP');
export const version = required('HEARTH_VERSION');
export const port = Number(required('HEARTH_E2E_PORT'));
export const screenshots = required('HEARTH_SCREENSHOTS');
export const simUrl = required('HEARTH_SIM_URL');

/**
 * Starts the app in a new WebDriver session (a new app process); another
 * `application` (a wrapper that sets its own environment) may stand in.
 */
export function startApp(application = app) {
  return remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'warn',
    // Starting the app behind a new session took over 60 s once, on 2
    // cores beside another build and two real models (a CI run failed
    // there); a request waits up to 3 minutes, and fails with its error.
    connectionRetryTimeout: 180_000,
    connectionRetryCount: 0,
    capabilities: {
      // WebKitWebDriver speaks classic WebDriver only.
      'wdio:enforceWebDriverClassic': true,
      'tauri:options': { application },
    },
  });
}

/**
 * Waits until the app has started: its first session open and the composer
 * focused (it takes the focus then: a field typed in before would lose the
 * rest of its keys to it).
 */
export async function started(browser) {
  await browser.$('[data-testid="composer-input"]').waitForEnabled({ timeout: 30_000 });
  await eventually(browser, 'the composer has the focus', async () =>
    browser.execute(() => document.activeElement?.getAttribute('data-testid') === 'composer-input'),
  );
}

/** Captures the whole virtual screen (the app's real window) with ImageMagick. */
export function captureScreen(file) {
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
export async function captureWindow(browser, name) {
  const file = path.join(screenshots, name);
  const rect = await browser.getWindowRect();
  // The DOM the test just checked, painted in the bundled font: two frames
  // after it and after the fonts it uses have loaded (under load the screen
  // lagged a streamed answer's end by a few frames).
  await browser.executeAsync((done) => document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
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
  return file;
}

/** The simulator's counters (requests, loads, unloads, cancelled, loaded). */
export async function simStats() {
  const response = await fetch(`${simUrl}/sim/stats`);
  assert.equal(response.status, 200);
  return response.json();
}

/** Waits for `check` to return a truthy value; fails with `what` and a screenshot. */
export async function eventually(browser, what, check, timeout = 20_000) {
  let last;
  try {
    await browser.waitUntil(
      async () => {
        last = await check();
        return Boolean(last);
      },
      { timeout, interval: 100 },
    );
  } catch {
    captureScreen(path.join(screenshots, 'failure.tmp.png'));
    assert.fail(`${what} (last seen: ${JSON.stringify(last)}; screen in failure.tmp.png)`);
  }
  return last;
}

/**
 * Types `text` into the field `selector`, its old value replaced, once the
 * page lets it be typed into: enabled, and under nothing. A menu or panel
 * that is closing takes the pointer and the keys for a moment, and
 * WebKitWebDriver then refuses with "element not interactable" (two CI runs
 * under load, 2026-12-07: the composer right after a menu chose a model or
 * opened a new chat). Tried again until the field holds the text.
 */
export async function typeInto(browser, selector, text, timeout = 30_000) {
  const field = browser.$(selector);
  await field.waitForEnabled({ timeout });
  await eventually(browser, `${selector} takes "${text.slice(0, 40)}"`, async () => {
    if (!(await field.isClickable())) return false;
    try {
      await field.setValue(text);
    } catch (e) {
      if (/not interactable/i.test(String(e?.message ?? e))) return false;
      throw e;
    }
    return (await field.getValue()) === text;
  }, timeout);
}

/**
 * Clicks `selector` once it can be clicked and has stopped moving: a panel
 * whose sections load one after another (Settings: knowledge, voice,
 * hosts) moves what is below them, and a click aimed a moment earlier
 * lands on what took its place (CI under load, 2026-12-07: the previews
 * checkbox's click went to the knowledge search box above it).
 */
export async function clickStill(browser, selector) {
  const el = browser.$(selector);
  await el.waitForClickable({ timeout: 30_000 });
  let before = '';
  await eventually(browser, `${selector} stays where it is`, async () => {
    const now = JSON.stringify(await browser.execute((s) => {
      const r = document.querySelector(s)?.getBoundingClientRect();
      return r ? [r.x, r.y, r.width, r.height] : null;
    }, selector));
    const still = now !== 'null' && now === before;
    before = now;
    return still;
  }, 30_000);
  await el.click();
}

/**
 * Sets the checkbox `testid` of the open Settings panel on or off: once the
 * knowledge section above it is read and the box stands still (`clickStill`),
 * then until it shows so. The voice test's "send at once" box, clicked a
 * moment too early on a new machine under load, stayed on (CI, stop 64).
 */
export async function setSettingsBox(browser, testid, on) {
  const selector = `[data-testid="${testid}"]`;
  const box = browser.$(selector);
  await box.waitForClickable({ timeout: 30_000 });
  await settingsRead(browser);
  if ((await box.isSelected()) !== on) await clickStill(browser, selector);
  await eventually(browser, `${testid} ${on ? 'on' : 'off'}`, async () => (await box.isSelected()) === on);
}

/**
 * Waits until the open Settings panel's lists that load after it opens
 * (hosts, knowledge folders) are read: each changes the height of what is
 * below it.
 */
export async function settingsRead(browser) {
  for (const [list, what] of [['host-list', 'hosts'], ['knowledge-folders', 'knowledge folders']]) {
    await eventually(browser, `the ${what} in Settings read`, async () => {
      const el = browser.$(`[data-testid="${list}"]`);
      return (await el.isExisting()) && (await el.getAttribute('aria-busy')) !== 'true';
    });
  }
}

/**
 * Clicks the button `selector` of the open Settings panel once the lists
 * above it are read and it stands still. The import button, clicked while
 * they loaded, missed: no dialog came in 90 s (CI under load, 2026-12-08).
 */
export async function clickInSettings(browser, selector) {
  await browser.$(selector).waitForClickable({ timeout: 30_000 });
  await settingsRead(browser);
  await clickStill(browser, selector);
}

/** Text of the element, or null when it is not there. */
export async function textOf(browser, selector) {
  const element = browser.$(selector);
  return (await element.isExisting()) ? (await element.getText()).trim() : null;
}

/**
 * Offers every tool and the MCP server `server` to the Chat profile (the
 * session's), saved before anything is sent: a run reads the profile as it
 * starts.
 */
export async function offerServerInChat(browser, server) {
  const click = async (selector) => {
    const el = browser.$(selector);
    await el.waitForClickable({ timeout: 30_000 });
    await el.click();
  };
  await click('[data-testid="open-profiles"]');
  await click('[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
  await click('[data-testid="tools-all"]');
  await click(`[data-testid="mcp-choice"][data-server="${server}"]`);
  await click('[data-testid="profile-save"]');
  await eventually(browser, 'the profile is saved', async () => {
    for (const t of await browser.$$('[data-testid="toast-text"]')) if ((await t.getText()).includes('Saved profile Chat')) return true;
    return false;
  });
  await click('[data-testid="panel-close"]');
}
