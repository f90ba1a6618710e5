// Export and import through the system's Save and Open dialogs (GTK's file
// chooser, shown by the app's Rust commands), driven with xdotool as a
// person would: the Save dialog opens in Downloads with the session's title
// as the name and writes the file; a cancelled one writes nothing; the Open
// dialog takes a ChatGPT export typed by name (Ctrl+L) and the conversation
// opens.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { clickInSettings, eventually, started } from './support.mjs';
import { answered, appFor, cleanup, click, removeDir, startSim, toast } from './owned.mjs';
import { focusWindow, press, typeText, until, windowTitled } from './x11.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-dialogs-'));
const config = path.join(dir, 'config');
const downloads = path.join(dir, 'Downloads');
const log = path.join(dir, 'app.log');
/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
  await removeDir(dir);
});

/** Waits for the dialog titled `title` and gives it the keyboard. */
async function dialog(title) {
  // A GTK file chooser that is the first of its run loads its themes and
  // icons: beside a build on two cores that once took more than 30 s.
  let id;
  try {
    id = await until(`the dialog "${title}" opens (app log: ${log})`, () => windowTitled(title), 90_000);
  } catch (e) {
    // The folder with the log is gone after the run: what the app said.
    let lines = [];
    try {
      lines = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-30);
    } catch (read) {
      lines = [`(not read: ${read.message})`];
    }
    console.log(`# the app's log, last lines:\n${lines.map((l) => `#   ${l}`).join('\n')}`);
    throw e;
  }
  focusWindow(id);
  return id;
}

/**
 * The header's session title, from the DOM: WebKitWebDriver's getText
 * answered "" for it while it was on screen. (This does not check that
 * it is visible; the screenshots of the other files show the header.)
 */
const title = () => browser.execute(() => document.querySelector('[data-testid="session-title"]')?.textContent?.trim());

async function sessionMenu(item) {
  await click(browser, '[data-testid="session-item"].current [data-testid="session-menu"]');
  await click(browser, `[data-testid="${item}"]`);
}

test('a session exports through the Save dialog, named after its title; conversations import through the Open dialog', async () => {
  // Where the desktop says Downloads is (xdg-user-dirs), as on a person's machine.
  mkdirSync(downloads, { recursive: true });
  mkdirSync(config, { recursive: true });
  writeFileSync(path.join(config, 'user-dirs.dirs'), `XDG_DOWNLOAD_DIR="${downloads}"\n`);
  const url = await startSim([{ name: 'llama3.2', capabilities: ['completion'] }], 0, [
    { when: 'green tea', content: 'Three minutes at 80 degrees.' },
  ]);
  // A UTF-8 locale: GTK drops a window title it cannot convert (the dialogs'
  // have curly quotes), and xdotool finds windows by title.
  browser = await appFor(url, { env: { XDG_CONFIG_HOME: config, HEARTH_LOG: 'hearth_app=info', LC_ALL: 'C.UTF-8' }, log });
  await started(browser);
  await answered(browser, 'How long should green tea steep?');
  await sessionMenu('session-rename');
  // Typed into the field as it opens, focused (clearing it through
  // WebDriver blurs it, and a blur ends the rename).
  const rename = browser.$('[data-testid="rename-input"]');
  await rename.waitForDisplayed({ timeout: 30_000 });
  await eventually(browser, 'the title field has the focus', async () =>
    browser.execute(() => document.activeElement?.getAttribute('data-testid') === 'rename-input'),
  );
  await browser.keys(['Control', 'a']);
  await browser.keys('Tea notes');
  await browser.keys('Enter');
  await eventually(browser, 'the session is renamed', async () => (await title()) === 'Tea notes');

  // Save: the dialog suggests Downloads/Tea notes.md; Enter accepts it.
  await sessionMenu('session-export-md');
  await dialog('Export “Tea notes” as Markdown');
  press('Return');
  const written = path.join(downloads, 'Tea notes.md');
  await toast(browser, `Exported to ${written}`);
  await until('the Save dialog closes', () => windowTitled('Export “Tea notes” as Markdown') === null, 30_000);
  const md = readFileSync(written, 'utf8');
  assert.match(md, /Tea notes/);
  assert.match(md, /How long should green tea steep\?/);
  assert.match(md, /Three minutes at 80 degrees\./);

  // Cancelled: nothing is written.
  await sessionMenu('session-export-json');
  await dialog('Export “Tea notes” as JSON');
  press('Escape');
  await until('the cancelled dialog closes', () => windowTitled('Export “Tea notes” as JSON') === null, 30_000);

  // Open: a ChatGPT export in Downloads, its name typed in the location
  // field (Ctrl+L).
  const exported = path.join(downloads, 'conversations.json');
  writeFileSync(
    exported,
    JSON.stringify([
      {
        title: 'Brewing oolong',
        current_node: 'a',
        mapping: {
          r: { id: 'r', parent: null, children: ['u'], message: null },
          u: { id: 'u', parent: 'r', children: ['a'], message: { author: { role: 'user' }, content: { parts: ['How hot for oolong?'] } } },
          a: { id: 'a', parent: 'u', children: [], message: { author: { role: 'assistant' }, content: { parts: ['About 90 degrees.'] } } },
        },
      },
    ]),
  );
  await click(browser, '[data-testid="open-settings"]');
  await clickInSettings(browser, '[data-testid="import-button"]');
  await dialog('Import conversations');
  press('ctrl+l');
  typeText(path.basename(exported));
  press('Return');
  await toast(browser, 'Imported 1 conversation from ChatGPT with 2 messages');
  await eventually(browser, 'the imported conversation opens', async () => (await title()) === 'Brewing oolong');
  await eventually(browser, 'its messages show', async () => {
    for (const m of await browser.$$('[data-testid="message-user"]')) if ((await m.getText()).includes('How hot for oolong?')) return true;
    return false;
  });

  // A profile's workspace, chosen in the folder dialog (user pass 2026-12,
  // defect 24): the path typed in its location field, then Select.
  const garden = path.join(dir, 'garden');
  mkdirSync(garden);
  await click(browser, '[data-testid="open-profiles"]');
  await click(browser, '[data-testid="profile-new"]');
  // It opens in the folder the field names (typing a long path into GTK's
  // location field races its completion).
  await browser.$('[data-testid="profile-workspace"]').setValue(dir);
  await click(browser, '[data-testid="choose-workspace"]');
  const chooser = await dialog('Choose the workspace folder');
  press('ctrl+l');
  typeText('garden/');
  press('Return');
  const field = () => browser.execute(() => document.querySelector('[data-testid="profile-workspace"]')?.value ?? null);
  // Enter on a folder's path either chooses it or opens it (GTK versions
  // differ); still open a moment later, Enter again chooses the folder
  // that is open.
  const gone = () => windowTitled('Choose the workspace folder') !== chooser;
  for (let i = 0; i < 50 && !gone(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!gone()) press('Return');
  await until('the folder dialog closes', () => gone() || null, 30_000);
  await eventually(browser, 'the chosen folder fills the workspace field', async () => (await field()) === garden, 30_000);
  await click(browser, '[data-testid="panel-close"]');

  // The cancelled export wrote nothing (by now its command has long returned).
  assert.deepEqual(readdirSync(downloads).sort(), ['Tea notes.md', 'conversations.json']);
  assert.match(readFileSync(log, 'utf8'), /exported \S+ to .*Tea notes\.md/);
});
