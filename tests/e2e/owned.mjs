// Simulators and apps a test file starts for itself, each on its own
// database and folders (a wrapper script gives the app its environment:
// WebKitWebDriver starts whatever binary it is given), all stopped and
// removed by `cleanup()`.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { app, eventually, startApp } from './support.mjs';

const simBin = path.resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'debug/hearth-sim');
const sims = [];
const dirs = [];

/** Stops every simulator started here and removes every folder. */
export function cleanup() {
  for (const s of sims) s.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** A free loopback port (for a server the app must find after it starts). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts hearth-sim with `models` (and scripted `replies`) on `port` (0: any); its URL. */
export async function startSim(models, port = 0, replies = []) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-sim-'));
  dirs.push(dir);
  const script = path.join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ models, replies }));
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

/** `value` quoted for sh. */
const sh = (value) => `'${String(value).replaceAll("'", `'\\''`)}'`;

/**
 * An app on a fresh database, with `url` as its Ollama; `env` adds to its
 * environment, with `log` set its stderr (its log) goes to that file, and
 * with `pidFile` set its process id is written there.
 */
export function appFor(url, { env = {}, log, pidFile } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-app-'));
  dirs.push(dir);
  const wrapper = path.join(dir, 'hearth-app');
  const more = Object.entries(env)
    .map(([k, v]) => {
      assert.match(k, /^[A-Za-z_]\w*$/, 'an environment variable name');
      return `export ${k}=${sh(v)}\n`;
    })
    .join('');
  writeFileSync(
    wrapper,
    `#!/bin/sh
export HEARTH_DB=${sh(`${dir}/hearth.sqlite`)} HEARTH_OLLAMA_URL=${sh(url)}
export XDG_CONFIG_HOME=${sh(`${dir}/config`)} XDG_DATA_HOME=${sh(`${dir}/data`)} XDG_CACHE_HOME=${sh(`${dir}/cache`)}
${more}${pidFile ? `echo $$ > ${sh(pidFile)}\n` : ''}exec ${sh(app)} "$@"${log ? ` 2>>${sh(log)}` : ''}
`,
  );
  chmodSync(wrapper, 0o755);
  return startApp(wrapper);
}

/** Clicks `selector` once it can be clicked. */
export async function click(browser, selector) {
  const el = browser.$(selector);
  await el.waitForClickable({ timeout: 30_000 });
  await el.click();
}

/** Sends `text` and waits for its answer to be complete; the answer's model. */
export async function answered(browser, text) {
  const before = (await browser.$$('[data-testid="message-assistant"][data-status="done"]')).length;
  const input = browser.$('[data-testid="composer-input"]');
  await input.waitForEnabled({ timeout: 30_000 });
  await input.setValue(text);
  await click(browser, '[data-testid="send-button"]');
  await eventually(browser, `the answer to "${text}"`, async () =>
    (await browser.$$('[data-testid="message-assistant"][data-status="done"]')).length > before,
  );
  assert.equal(await browser.$('[data-testid="run-error"]').isExisting(), false, 'no error card');
  const models = await browser.$$('[data-testid="message-assistant"] [data-testid="answer-model"]');
  return (await models[models.length - 1].getText()).trim();
}

/** Waits for a toast saying `text`. */
export async function toast(browser, text) {
  await eventually(browser, `a toast saying "${text}"`, async () => {
    for (const t of await browser.$$('[data-testid="toast-text"]')) if ((await t.getText()).includes(text)) return true;
    return false;
  });
}
