// The installed app updates itself (docs/updates.md). Run by
// tests/package/update.sh, which installed the release .deb, made the newer
// package (one patch higher, signed), two forgeries of it, and an https
// server whose latest.json this test sets before each check:
//   - signed with another key, altered after signing, and the installed
//     version's own package genuinely signed but offered as the newer one:
//     the app shows the offer and its notes, refuses to install it, says
//     why, keeps running, and the installed package keeps its version;
//   - genuine: installed on the person's word, then the app restarts into
//     the new package on the same database.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { clickStill, eventually, required, startApp, textOf } from '../e2e/support.mjs';

const www = required('HEARTH_UPDATE_WWW');
const descriptions = required('HEARTH_UPDATE_DESCRIPTIONS');
const next = required('HEARTH_UPDATE_NEXT');
const pkg = required('HEARTH_UPDATE_PACKAGE');
const db = path.join(required('HEARTH_E2E_DATA_DIR'), 'data', 'hearth', 'hearth.sqlite');
const MESSAGE = 'a conversation from before the update';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  // The app this session started is gone after the restart: nothing to end.
  await browser?.deleteSession().catch(() => {});
});

const installedVersion = () => execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });

/** The pids of the running installed apps. */
function appPids() {
  try {
    return execFileSync('pgrep', ['-f', '^/usr/bin/hearth-app'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when none runs
  }
}

/** Whether process `pid` has `file` open. */
function holds(pid, file) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === file; } catch { return false; }
    });
  } catch {
    return false;
  }
}

/** Waits without a browser (the app is restarting): `check` every 100 ms, at most `timeout`. */
async function until(what, check, timeout = 120_000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    const seen = check();
    if (seen) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what} within ${timeout / 1000} s`);
}

/** The processes of the app and whether the X display still answers to connections. */
function restartState() {
  const display = (process.env.DISPLAY ?? '').replace(/^:/, '').split('.')[0];
  const socket = `/tmp/.X11-unix/X${display}`;
  let ps = '';
  try {
    ps = execFileSync('ps', ['-eo', 'pid,ppid,stat,etime,args'], { encoding: 'utf8' })
      .split('\n').filter((l) => /hearth-app|Xvfb|WebKit/.test(l)).join('\n');
  } catch (e) {
    ps = `ps failed: ${e}`;
  }
  return `restart: DISPLAY=${process.env.DISPLAY}, ${socket} ${fs.existsSync(socket) ? 'exists' : 'is gone'}\n${ps}`;
}

/** Serve description `name` (update.sh wrote it) as latest.json, then check. */
async function offer(name) {
  fs.copyFileSync(path.join(descriptions, `${name}.json`), path.join(www, 'latest.json'));
  await clickStill(browser, '[data-testid="update-check"]');
  await eventually(browser, `the ${name} offer is shown`, async () =>
    (await textOf(browser, '[data-testid="update-status"]'))?.includes(`Hearth ${next} is available`),
  60_000);
  assert.match(await textOf(browser, '[data-testid="update-notes"]'), /Faster start\.\s+Sources open where they are quoted\./);
}

test('a forged update is refused, the genuine one installed and restarted into', async () => {
  const current = installedVersion();
  browser = await startApp();
  const input = browser.$('[data-testid="composer-input"]');
  await input.waitForEnabled({ timeout: 30_000 });
  await input.setValue(MESSAGE);
  await browser.$('[data-testid="send-button"]').click();
  await eventually(browser, 'the answer completes', async () =>
    browser.$('[data-testid="message-assistant"][data-status="done"]').isExisting(),
  );
  await clickStill(browser, '[data-testid="open-settings"]');

  const esc = (v) => v.replaceAll('.', '\\.');
  const why = {
    other: /signature does not match Hearth's update key/,
    altered: /signature does not match Hearth's update key/,
    relabelled: new RegExp(`the package is version ${esc(current)}, not the ${esc(next)} it was offered as`),
  };
  for (const forged of ['other', 'altered', 'relabelled']) {
    await offer(forged);
    await clickStill(browser, '[data-testid="update-install"]');
    const error = await eventually(browser, `the ${forged} package is refused`, async () =>
      textOf(browser, '[data-testid="update-error"]'),
    60_000);
    assert.match(error, why[forged], forged);
    assert.match(error, new RegExp(`Hearth ${esc(current)} keeps running`), forged);
    assert.equal(installedVersion(), current, `after the ${forged} package`);
    // Still this app, still answering.
    assert.ok(await browser.$('[data-testid="update-check"]').isEnabled());
  }

  const before = appPids();
  assert.equal(before.length, 1, `one installed app runs: ${before}`);
  assert.ok(holds(before[0], db), `the app has ${db} open`);
  await offer('genuine');
  await clickStill(browser, '[data-testid="update-install"]');

  await until(`the package is at ${next}`, () => installedVersion() === next);
  const restarted = await until('the app runs again, a new process, on the same database', () =>
    appPids().find((pid) => !before.includes(pid) && holds(pid, db)),
  ).catch((e) => {
    // What a restart that never came back leaves to read: the restarted
    // process's own output is in the tauri-driver log run.sh prints.
    console.error(restartState());
    throw e;
  });
  await until('the old process is gone', () => !appPids().includes(before[0]), 30_000);
  process.kill(restarted, 'SIGTERM');
  await until('the restarted app quits', () => !appPids().includes(restarted), 60_000);
});
