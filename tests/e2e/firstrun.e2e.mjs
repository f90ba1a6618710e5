// The first run in the real app, from each state a new user's server can
// be in, to a streamed answer: no server yet (found by itself once it
// starts), a server with no model (a recommended one pulled from the
// notice), a server without the seeded `llama3.2` (the profiles move to an
// installed model). Then the model picker switches models mid-session and
// the simulator counts no reload when switching back.
//
// Each app runs on a fresh database and its own simulator: a wrapper
// script gives it its own environment (WebKitWebDriver starts whatever
// binary it is given). Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { answered, appFor, cleanup, click, freePort, startSim, toast } from './owned.mjs';
import { captureWindow } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
});

// Each test starts its own app: the one before ends even when its test
// failed (WebKitWebDriver holds one session at a time, and a failed test
// that left its session open failed the next one too).
afterEach(async () => {
  await browser?.deleteSession();
  browser = undefined;
});

test('no server yet: the banner says how to start one, and the app finds it once it runs', async () => {
  const port = await freePort();
  browser = await appFor(`http://127.0.0.1:${port}`);
  const banner = browser.$('[data-testid="backend-banner"]');
  await banner.waitForExist({ timeout: 30_000 });
  assert.match(await banner.getText(), /ollama serve/);
  await startSim([{ name: 'llama3.2:latest', capabilities: ['completion', 'tools'] }], port);
  await banner.waitForExist({ reverse: true, timeout: 20_000 });
  assert.equal(await answered(browser, 'hello'), 'llama3.2');
});

test('an empty server: a recommended model pulled from the notice answers', async () => {
  const url = await startSim([{ name: 'qwen3:4b', installed: false, capabilities: ['completion', 'tools', 'thinking'], size: 2_500_000_000 }]);
  browser = await appFor(url);
  await browser.$('[data-testid="no-models"]').waitForExist({ timeout: 30_000 });
  await click(browser, '[data-testid="recommended"][data-model="qwen3:4b"] [data-testid="pull-button"]');
  await toast(browser, 'Agent and Chat now use qwen3:4b');
  await browser.$('[data-testid="no-models"]').waitForExist({ reverse: true, timeout: 20_000 });
  await captureWindow(browser, 'firstrun-pulled.png');
  assert.equal(await answered(browser, 'hello'), 'qwen3:4b');
});

test('a server without llama3.2: the profiles move to its tool-capable model; the picker switches and back without a reload', async () => {
  const url = await startSim([
    { name: 'qwen2.5:7b', capabilities: ['completion', 'tools'] },
    { name: 'gemma3:1b', capabilities: ['completion'] },
  ]);
  browser = await appFor(url);
  await toast(browser, 'Agent and Chat now use qwen2.5:7b');
  assert.equal(await browser.$('[data-testid="model-missing"]').isExisting(), false);
  assert.equal(await answered(browser, 'hello'), 'qwen2.5:7b');

  await click(browser, '[data-testid="model-picker"]');
  await click(browser, '[data-testid="model-option"][data-model="gemma3:1b"]');
  assert.equal(await answered(browser, 'and now?'), 'gemma3:1b');
  await click(browser, '[data-testid="model-picker"]');
  await click(browser, '[data-testid="model-option-profile"]');
  assert.equal(await answered(browser, 'and back'), 'qwen2.5:7b');
  await captureWindow(browser, 'firstrun-picker.png');
  const stats = await (await fetch(`${url}/sim/stats`)).json();
  assert.equal(stats.loads_started, 2, `one load per model: ${JSON.stringify(stats)}`);
  assert.equal(stats.unloads, 0);
});
