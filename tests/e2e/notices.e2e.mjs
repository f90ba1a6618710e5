// System notifications from the real app on a session bus of the test's
// own, watched with dbus-monitor (no notification server is needed to see
// what the app sends): a tool call waiting for approval is announced while
// the window is in the background, and not while it has the focus. On an X
// server without a window manager the focus follows the pointer, so the
// test moves the pointer off and onto the window (WebDriver's clicks never
// move it). Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { eventually, started } from './support.mjs';
import { appFor, cleanup, click, removeDir, startSim } from './owned.mjs';
import { geometry, pointerTo, startBus, until, windowOf } from './x11.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-notices-'));
const log = path.join(dir, 'app.log');
const pidFile = path.join(dir, 'app.pid');
const children = [];
/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  for (const c of children) c.kill('SIGTERM');
  await cleanup();
  await removeDir(dir);
});

const shell = (command) => ({ name: 'run_shell', arguments: { command } });
const replies = [
  { when: 'first listing', tool_calls: [shell('ls')] },
  { when: 'first listing', content: 'Listed once.' },
  { when: 'second listing', tool_calls: [shell('ls -a')] },
  { when: 'second listing', content: 'Listed twice.' },
];

/** Whether the app's last word on its window's focus is `focused`. */
function focusIs(focused) {
  const said = readFileSync(log, 'utf8').match(/window focus: (true|false)/g) ?? [];
  return said.at(-1) === `window focus: ${focused}`;
}

/** Sends `text` and waits for its approval card. */
async function askAndWaitForApproval(text) {
  const input = browser.$('[data-testid="composer-input"]');
  await input.waitForEnabled({ timeout: 30_000 });
  await input.setValue(text);
  await click(browser, '[data-testid="send-button"]');
  const seen = await eventually(
    browser,
    `the approval for "${text}"`,
    async () => {
      if (await browser.$('[data-testid="approve-deny"]').isClickable()) return 'asked';
      // A call refused before asking ends the wait with its reason.
      const failed = browser.$('[data-testid="tool-card"][data-outcome="error"]');
      if (await failed.isExisting()) {
        await failed.$('summary').click();
        const out = failed.$('[data-testid="tool-output"]');
        return `refused: ${(await out.isExisting()) ? await out.getText() : await failed.getText()}`;
      }
      return false;
    },
    60_000,
  );
  assert.equal(seen, 'asked', `the call was to ask first; log: ${readFileSync(log, 'utf8').slice(-3000)}`);
}

async function denyAndWaitForTheAnswer(text) {
  await click(browser, '[data-testid="approve-deny"]');
  await eventually(browser, `the answer "${text}"`, async () => {
    for (const d of await browser.$$('[data-testid="message-assistant"][data-status="done"]')) if ((await d.getText()).includes(text)) return true;
    return false;
  }, 60_000);
}

test('an approval is a system notification while the window is in the background, not while it has the focus', async () => {
  const { address, daemon } = await startBus(path.join(dir, 'bus'));
  children.push(daemon);
  // Every Notify call on the bus, whoever (nobody, here) serves it.
  const monitor = spawn('dbus-monitor', ['--address', address, "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(monitor);
  let calls = '';
  monitor.stdout.on('data', (d) => (calls += d));
  // Approval notices only: a run that took long enough under load may
  // also, rightly, announce its answer.
  const approvals = () => calls.split('Hearth asks before running').length - 1;

  const url = await startSim([{ name: 'llama3.2', capabilities: ['completion', 'tools'] }], 0, replies);
  browser = await appFor(url, { env: { DBUS_SESSION_BUS_ADDRESS: address, HEARTH_LOG: 'hearth_app=debug' }, log, pidFile });

  // The session's profile (Chat) offers every tool, in a workspace. Once
  // the first session is open: it takes the focus to the composer, and a
  // field being typed in would lose the rest of its keys.
  await started(browser);
  await click(browser, '[data-testid="open-profiles"]');
  await click(browser, '[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
  await click(browser, '[data-testid="tools-all"]');
  const workspace = browser.$('[data-testid="profile-workspace"]');
  await workspace.setValue(dir);
  assert.equal(await workspace.getValue(), dir);
  assert.equal(await browser.$('[data-testid="tools-all"]').isSelected(), true);
  await click(browser, '[data-testid="profile-save"]');
  await eventually(browser, 'the profile is saved', async () => {
    for (const t of await browser.$$('[data-testid="toast-text"]')) if ((await t.getText()).includes('Saved profile Chat')) return true;
    return false;
  });
  await click(browser, '[data-testid="panel-close"]');

  // The person looks elsewhere: the pointer leaves the window.
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const win = await until('the app shows its window', () => windowOf(pid));
  const g = geometry(win);
  const [outX, outY] = [g.x + g.width + 5, g.y + g.height + 5];
  assert.ok(outX < 1280 && outY < 800, `the window ${JSON.stringify(g)} leaves room beside it on the 1280×800 screen`);
  // On it first (wherever an earlier test left the pointer), then off it.
  pointerTo(g.x + Math.floor(g.width / 2), g.y + Math.floor(g.height / 2));
  await until('the app saw its window take the focus', () => focusIs(true));
  pointerTo(outX, outY);
  await until('the app saw its window lose the focus', () => focusIs(false));
  await askAndWaitForApproval('Do a first listing of the folder.');
  const notify = await until('a Notify call for the approval', () => calls.includes('Hearth asks before running run_shell') && calls, 30_000);
  assert.match(notify, /string "hearth-app"/, `the app names itself: ${notify}`);
  assert.match(notify, /string "runs `ls` in [^"]*hearth-e2e-notices-/, `the text says what would run, and where: ${notify}`);
  await denyAndWaitForTheAnswer('Listed once.');

  // Back at the window: the card says it, no notification.
  pointerTo(g.x + Math.floor(g.width / 2), g.y + Math.floor(g.height / 2));
  await until('the app saw its window take the focus', () => focusIs(true));
  const shown = approvals();
  await askAndWaitForApproval('Do a second listing of the folder.');
  await until('the app saw the approval and kept quiet', () =>
    readFileSync(log, 'utf8').includes('not shown (the window has the focus): Hearth asks before running run_shell'),
  );
  assert.equal(approvals(), shown, `no approval notice while the window has the focus: ${calls}`);
  await denyAndWaitForTheAnswer('Listed twice.');
});
