// Turning a profile's sandbox off in the real app is the user's word, given
// in a native dialog the page cannot answer (security review N11): declined
// with Escape, nothing is saved and the sandbox holds; confirmed with
// Alt+T ("_Turn it off"), the profile is saved, and the next command's
// approval says it runs NOT sandboxed, and it does (its write outside the
// workspace is made). Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { eventually, started, typeInto } from './support.mjs';
import { appFor, cleanup, click, removeDir, startSim, toast } from './owned.mjs';
import { answer } from './x11.mjs';

const SANDBOX_OFF = 'Hearth: run commands without the sandbox?';
const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-sandbox-off-'));
const workspace = path.join(dir, 'ws');
const outside = path.join(dir, 'outside');
mkdirSync(workspace);
mkdirSync(outside);
/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
  await removeDir(dir);
});

const command = `echo outside > '${outside}/written.txt' && echo "wrote outside"`;
const replies = [
  { when: 'Write the note', tool_calls: [{ name: 'run_shell', arguments: { command } }] },
  { when: 'Write the note', content: 'Written.' },
];

/** The profile editor of Chat, opened (asked again while the list redraws). */
async function editChat() {
  await click(browser, '[data-testid="open-profiles"]');
  await eventually(browser, 'the profile editor', async () => {
    if (await browser.$('[data-testid="tools-all"]').isClickable()) return 'open';
    const edit = browser.$('[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
    if (await edit.isClickable()) await edit.click();
    return false;
  }, 60_000);
}

test('turning the sandbox off is confirmed natively: declined, nothing is saved; confirmed, commands run unconfined and the approval says so', async () => {
  const url = await startSim([{ name: 'llama3.2', capabilities: ['completion', 'tools'] }], 0, replies);
  browser = await appFor(url);
  await started(browser);

  await editChat();
  await click(browser, '[data-testid="tools-all"]');
  await browser.$('[data-testid="profile-workspace"]').setValue(workspace);
  await click(browser, '[data-testid="profile-sandbox-off"]');
  await browser.$('[data-testid="sandbox-off-warning"]').waitForExist({ timeout: 10_000 });
  await click(browser, '[data-testid="profile-save"]');
  await answer(SANDBOX_OFF, 'Escape');
  await toast(browser, 'the confirmation was declined');
  await click(browser, '[data-testid="profile-save"]');
  await answer(SANDBOX_OFF, 'alt+t');
  await toast(browser, 'Saved profile Chat');
  await click(browser, '[data-testid="panel-close"]');

  await typeInto(browser, '[data-testid="composer-input"]', 'Write the note.');
  await click(browser, '[data-testid="send-button"]');
  const reach = await eventually(browser, 'the approval', async () => {
    const el = browser.$('[data-testid="approval-reach"]');
    return (await el.isExisting()) ? el.getText() : false;
  }, 60_000);
  assert.match(reach, /NOT sandboxed/, `the approval says the sandbox is off: ${reach}`);
  assert.equal(existsSync(path.join(outside, 'written.txt')), false, 'nothing ran before the approval');
  await click(browser, '[data-testid="approve-once"]');
  await eventually(browser, 'the answer after the command', async () => {
    for (const d of await browser.$$('[data-testid="message-assistant"][data-status="done"]')) if ((await d.getText()).includes('Written.')) return true;
    return false;
  }, 60_000);
  assert.equal(readFileSync(path.join(outside, 'written.txt'), 'utf8'), 'outside\n');
});
