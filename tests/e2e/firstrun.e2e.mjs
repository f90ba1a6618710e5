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
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { app, captureWindow, eventually, startApp } from './support.mjs';

const simBin = path.resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'debug/hearth-sim');

/** @type {import('webdriverio').Browser | undefined} */
let browser;
const sims = [];
const dirs = [];

after(async () => {
  await browser?.deleteSession();
  for (const s of sims) s.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A free loopback port (for a server the app must find after it starts). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts hearth-sim with `models` on `port` (0: any); its URL. */
async function startSim(models, port = 0) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-firstrun-sim-'));
  dirs.push(dir);
  const script = path.join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ models, replies: [] }));
  const child = spawn(simBin, ['--port', String(port), '--script', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  sims.push(child);
  const line = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`hearth-sim exited with ${code}`)));
  });
  child.stdout.resume();
  return line.replace('listening on ', '').trim();
}

/** An app on a fresh database, talking to `url`. */
function appFor(url) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-firstrun-'));
  dirs.push(dir);
  const wrapper = path.join(dir, 'hearth-app');
  writeFileSync(
    wrapper,
    `#!/bin/sh
export HEARTH_DB='${dir}/hearth.sqlite' HEARTH_OLLAMA_URL='${url}'
export XDG_CONFIG_HOME='${dir}/config' XDG_DATA_HOME='${dir}/data' XDG_CACHE_HOME='${dir}/cache'
exec '${app}' "$@"
`,
  );
  chmodSync(wrapper, 0o755);
  return startApp(wrapper);
}

async function click(selector) {
  const el = browser.$(selector);
  await el.waitForClickable({ timeout: 30_000 });
  await el.click();
}

/** Sends `text` and waits for its answer to be complete; the answer's model. */
async function answered(text) {
  const before = (await browser.$$('[data-testid="message-assistant"][data-status="done"]')).length;
  const input = browser.$('[data-testid="composer-input"]');
  await input.waitForEnabled({ timeout: 30_000 });
  await input.setValue(text);
  await click('[data-testid="send-button"]');
  await eventually(browser, `the answer to "${text}"`, async () =>
    (await browser.$$('[data-testid="message-assistant"][data-status="done"]')).length > before,
  );
  assert.equal(await browser.$('[data-testid="run-error"]').isExisting(), false, 'no error card');
  const models = await browser.$$('[data-testid="message-assistant"] [data-testid="answer-model"]');
  return (await models[models.length - 1].getText()).trim();
}

async function toast(text) {
  await eventually(browser, `a toast saying "${text}"`, async () => {
    for (const t of await browser.$$('[data-testid="toast-text"]')) if ((await t.getText()).includes(text)) return true;
    return false;
  });
}

async function endSession() {
  await browser?.deleteSession();
  browser = undefined;
}

test('no server yet: the banner says how to start one, and the app finds it once it runs', async () => {
  const port = await freePort();
  browser = await appFor(`http://127.0.0.1:${port}`);
  const banner = browser.$('[data-testid="backend-banner"]');
  await banner.waitForExist({ timeout: 30_000 });
  assert.match(await banner.getText(), /ollama serve/);
  await startSim([{ name: 'llama3.2:latest', capabilities: ['completion', 'tools'] }], port);
  await banner.waitForExist({ reverse: true, timeout: 20_000 });
  assert.equal(await answered('hello'), 'llama3.2');
  await endSession();
});

test('an empty server: a recommended model pulled from the notice answers', async () => {
  const url = await startSim([{ name: 'qwen3:4b', installed: false, capabilities: ['completion', 'tools', 'thinking'], size: 2_500_000_000 }]);
  browser = await appFor(url);
  await browser.$('[data-testid="no-models"]').waitForExist({ timeout: 30_000 });
  await click('[data-testid="recommended"][data-model="qwen3:4b"] [data-testid="pull-button"]');
  await toast('Agent and Chat now use qwen3:4b');
  await browser.$('[data-testid="no-models"]').waitForExist({ reverse: true, timeout: 20_000 });
  await captureWindow(browser, 'firstrun-pulled.png');
  assert.equal(await answered('hello'), 'qwen3:4b');
  await endSession();
});

test('a server without llama3.2: the profiles move to its tool-capable model; the picker switches and back without a reload', async () => {
  const url = await startSim([
    { name: 'qwen2.5:7b', capabilities: ['completion', 'tools'] },
    { name: 'gemma3:1b', capabilities: ['completion'] },
  ]);
  browser = await appFor(url);
  await toast('Agent and Chat now use qwen2.5:7b');
  assert.equal(await browser.$('[data-testid="model-missing"]').isExisting(), false);
  assert.equal(await answered('hello'), 'qwen2.5:7b');

  await click('[data-testid="model-picker"]');
  await click('[data-testid="model-option"][data-model="gemma3:1b"]');
  assert.equal(await answered('and now?'), 'gemma3:1b');
  await click('[data-testid="model-picker"]');
  await click('[data-testid="model-option-profile"]');
  assert.equal(await answered('and back'), 'qwen2.5:7b');
  await captureWindow(browser, 'firstrun-picker.png');
  const stats = await (await fetch(`${url}/sim/stats`)).json();
  assert.equal(stats.loads_started, 2, `one load per model: ${JSON.stringify(stats)}`);
  assert.equal(stats.unloads, 0);
});
