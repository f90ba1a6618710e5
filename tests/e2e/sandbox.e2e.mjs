// The shell sandbox in the real app, as whoever runs the suite: CI runs
// this file as root with the rest, and again as an unprivileged user
// (tests/unprivileged/run.sh), since desktop users are not root. A scripted
// model asks to run a command that writes inside its workspace and tries to
// write outside it; the person reads the approval, which says what holds,
// and allows it once. The command ran as this user, its write inside
// happened, the one outside was refused, and the card shows it.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { eventually, started, typeInto } from './support.mjs';
import { appFor, cleanup, click, removeDir, startSim } from './owned.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-sandbox-'));
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

const command = [
  'echo "uid $(id -u)"',
  'echo inside > made-here.txt && echo "wrote inside"',
  `(echo planted > '${outside}/planted.txt') 2>/dev/null && echo "wrote outside" || echo "refused outside"`,
].join('; ');
const replies = [
  { when: 'Tidy the folder', tool_calls: [{ name: 'run_shell', arguments: { command } }] },
  { when: 'Tidy the folder', content: 'Tidied.' },
];

test('an approved command runs sandboxed as this user: the approval says so, a write inside is made, one outside refused', async () => {
  const url = await startSim([{ name: 'llama3.2', capabilities: ['completion', 'tools'] }], 0, replies);
  browser = await appFor(url);
  await started(browser);

  // The session's profile (Chat) offers every tool, in the workspace. A
  // click that lands while the panel's list is drawn again (the models
  // arriving) opens nothing: asked again until the editor is there.
  await click(browser, '[data-testid="open-profiles"]');
  await eventually(browser, 'the profile editor', async () => {
    if (await browser.$('[data-testid="tools-all"]').isClickable()) return 'open';
    const edit = browser.$('[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
    if (await edit.isClickable()) await edit.click();
    return false;
  }, 60_000);
  await click(browser, '[data-testid="tools-all"]');
  const field = browser.$('[data-testid="profile-workspace"]');
  await field.setValue(workspace);
  assert.equal(await field.getValue(), workspace);
  await click(browser, '[data-testid="profile-save"]');
  await eventually(browser, 'the profile is saved', async () => {
    for (const t of await browser.$$('[data-testid="toast-text"]')) if ((await t.getText()).includes('Saved profile Chat')) return true;
    return false;
  });
  await click(browser, '[data-testid="panel-close"]');

  await typeInto(browser, '[data-testid="composer-input"]', 'Tidy the folder.');
  await click(browser, '[data-testid="send-button"]');

  // What the person is told before anything runs: the mechanism the probe
  // found on this machine for this user, and what it confines.
  const reach = await eventually(browser, 'the approval', async () => {
    const el = browser.$('[data-testid="approval-reach"]');
    return (await el.isExisting()) ? el.getText() : false;
  }, 60_000);
  assert.match(reach, /sandboxed by bubblewrap/, `the approval names the sandbox: ${reach}`);
  assert.match(reach, /writes only inside/, `the approval says where it may write: ${reach}`);
  assert.match(reach, /no network/, `the approval says the network is cut: ${reach}`);
  await click(browser, '[data-testid="approve-once"]');

  await eventually(browser, 'the answer after the command', async () => {
    for (const d of await browser.$$('[data-testid="message-assistant"][data-status="done"]')) if ((await d.getText()).includes('Tidied.')) return true;
    return false;
  }, 60_000);
  const card = browser.$('[data-testid="tool-card"][data-outcome="ok"]');
  await card.waitForExist({ timeout: 30_000 });
  await card.$('summary').click();
  const output = await eventually(browser, 'the command\'s output on its card', async () => {
    const out = card.$('[data-testid="tool-output"]');
    return (await out.isExisting()) ? out.getText() : false;
  });
  const uid = process.getuid();
  assert.match(output, new RegExp(`uid ${uid}\\b`), `the command ran as this user (uid ${uid}): ${output}`);
  assert.match(output, /wrote inside/, output);
  assert.match(output, /refused outside/, output);
  assert.equal(readFileSync(path.join(workspace, 'made-here.txt'), 'utf8'), 'inside\n');
  assert.equal(existsSync(path.join(outside, 'planted.txt')), false, 'nothing was written outside the workspace');
});
