// Simulators and apps a test file starts for itself, each on its own
// database and folders (a wrapper script gives the app its environment:
// WebKitWebDriver starts whatever binary it is given), all stopped and
// removed by `cleanup()`. `removeDir()` removes a folder once nothing runs
// in it any more (WebKit's web process can outlive the app and still
// write its caches there).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { app, eventually, startApp, typeInto } from './support.mjs';

const simBin = path.resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'debug/hearth-sim');
const sims = [];
const dirs = [];

/** Stops every simulator started here and removes every folder (and what still runs in it). */
export async function cleanup() {
  for (const s of sims) s.kill('SIGTERM');
  for (const d of dirs) await removeDir(d);
}

/**
 * The processes whose environment names a path in `dir`: an app started
 * on it and the web and network processes it started, which inherit it.
 */
function processesIn(dir) {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let env;
    try {
      env = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours
    }
    if (env.split('\0').some((kv) => kv.slice(kv.indexOf('=') + 1).startsWith(`${dir}/`))) pids.push(Number(name));
  }
  return pids;
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Removes folder `dir` once nothing runs in it any more. Ending a WebDriver
 * session ends the app, but its web process can outlive it by a moment and
 * still write its shader cache there (a removal then failed with ENOTEMPTY
 * in CI): what is left is asked to end, and killed after 10 s. A folder
 * that still cannot be removed is reported, never a failed test.
 */
export async function removeDir(dir) {
  let pids = processesIn(dir);
  for (const pid of pids) signal(pid, 'SIGTERM');
  for (let i = 0; i < 100 && pids.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pids = processesIn(dir);
  }
  for (const pid of pids) signal(pid, 'SIGKILL');
  let error;
  for (let i = 0; i < 50; i++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (e) {
      error = e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  console.error(`could not remove ${dir}: ${error.message}`);
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

/** The CLI the same build made, for a test that prepares a database the app then opens. */
export const cliBin = path.resolve(process.env.CARGO_TARGET_DIR ?? 'target', 'debug/hearth');

/**
 * An app on a fresh database, with `url` as its Ollama; `env` adds to its
 * environment, with `log` set its stderr (its log) goes to that file, and
 * with `pidFile` set its process id is written there. `prepare(db)` runs
 * first with the database's path (the CLI can fill it).
 */
export async function appFor(url, { env = {}, log, pidFile, prepare } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-app-'));
  dirs.push(dir);
  if (prepare) await prepare(`${dir}/hearth.sqlite`);
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
  const browser = await startApp(wrapper);
  // A toast shown while the app starts (the seeded profiles moving to an
  // installed model) is kept for the test that waits for it.
  await recordToasts(browser);
  return browser;
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
  await typeInto(browser, '[data-testid="composer-input"]', text);
  await click(browser, '[data-testid="send-button"]');
  await eventually(browser, `the answer to "${text}"`, async () =>
    (await browser.$$('[data-testid="message-assistant"][data-status="done"]')).length > before,
  );
  assert.equal(await browser.$('[data-testid="run-error"]').isExisting(), false, 'no error card');
  const models = await browser.$$('[data-testid="message-assistant"] [data-testid="answer-model"]');
  return (await models[models.length - 1].getText()).trim();
}

/**
 * Keeps every toast the page shows from now on in a list in the page: a
 * toast lives 6 s, and on 2 cores under load the WebDriver round trips of
 * a poll can outlast it (a CI run missed one). Idempotent; `toast()` calls
 * it too, for a page started some other way.
 */
export async function recordToasts(browser) {
  await browser.execute(() => {
    if (window.__e2eToasts) return;
    const seen = new WeakSet();
    const list = (window.__e2eToasts = []);
    const note = () => {
      for (const t of document.querySelectorAll('[data-testid="toast-text"]')) {
        if (seen.has(t)) continue;
        seen.add(t);
        list.push(t.textContent ?? '');
      }
    };
    note();
    new MutationObserver(note).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

/**
 * Waits for a toast saying `text`: one shown since the last wait took its
 * predecessor (each shown toast answers one wait), or one on screen now.
 */
export async function toast(browser, text) {
  await recordToasts(browser);
  await eventually(browser, `a toast saying "${text}"`, async () =>
    browser.execute((wanted) => {
      const list = window.__e2eToasts ?? [];
      const at = list.findIndex((t) => t.includes(wanted));
      if (at >= 0) {
        list.splice(at, 1);
        return true;
      }
      return [...document.querySelectorAll('[data-testid="toast-text"]')].some((t) => (t.textContent ?? '').includes(wanted));
    }, text),
  );
}
