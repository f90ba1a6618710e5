// Projects and knowledge in the real app: a project made with the CLI
// (its profile offers the search tool, its own knowledge folder synced)
// shows in the sidebar; a new chat in it searches that folder; the
// answer's sources are listed under it, a quotation its source does not
// hold is flagged, and a click opens the passage as the index holds it.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { appFor, cleanup, cliBin, click, removeDir, startSim } from './owned.mjs';
import { captureWindow, eventually, textOf, typeInto } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;
const notes = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-notes-'));

after(async () => {
  await browser?.deleteSession();
  await cleanup();
  await removeDir(notes);
});

// Both turns of the answer ask with the same last user message: the call
// is taken first, the text after its result.
const replies = [
  { when: 'When do I prune', tool_calls: [{ name: 'search_knowledge', arguments: { query: 'prune roses winter' } }] },
  {
    when: 'When do I prune',
    content: 'Prune them "in late winter, just above an outward-facing bud" [1]. Never "prune in the summer heat" [1].',
  },
  { when: 'Write a title of at most 6 words', content: 'Pruning roses' },
];

test('a chat in a project searches its folder, and its answer shows the sources with a wrong quote flagged', async () => {
  const garden = path.join(notes, 'garden');
  mkdirSync(garden);
  writeFileSync(path.join(garden, 'roses.md'), '# Roses\n\nPrune the roses in late winter, just above an outward-facing bud.\n');
  const url = await startSim([{ name: 'llama3.2', capabilities: ['completion', 'tools'] }], 0, replies);
  browser = await appFor(url, {
    prepare: (db) => {
      const cli = (...args) => execFileSync(cliBin, args, { env: { ...process.env, HEARTH_DB: db }, encoding: 'utf8' });
      cli('profiles', 'set', 'Finder', '--model', 'llama3.2', '--tools', 'search_knowledge');
      cli('projects', 'create', 'Garden', '--profile', 'Finder', '--instructions', 'Answer like a gardener.');
      cli('knowledge', 'add', garden, '--project', 'Garden');
      cli('knowledge', 'sync', '--no-embed');
    },
  });

  const project = '[data-testid="project-item"][data-project="Garden"]';
  await eventually(browser, 'the project in the sidebar', async () => browser.$(project).isExisting(), 30_000);
  await click(browser, `${project} [data-testid="project-menu"]`);
  await click(browser, '[data-testid="project-new-chat"]');
  // The new chat is open in the project, and the menu that made it has
  // closed: while it closes, the page takes no pointer or typing (CI under
  // load found the composer enabled but "not interactable" at that moment).
  await eventually(browser, 'the new chat, in the project', async () =>
    (await textOf(browser, '[data-testid="session-project"]'))?.includes('Garden'), 30_000);
  await typeInto(browser, '[data-testid="composer-input"]', 'When do I prune the roses?');
  await click(browser, '[data-testid="send-button"]');

  const sources = '[data-testid="message-assistant"] [data-testid="answer-sources"]';
  await eventually(browser, 'the sources under the answer', async () => browser.$(`${sources} [data-testid="source"]`).isExisting(), 60_000);
  const label = await browser.$(`${sources} [data-testid="source"][data-n="1"]`).getText();
  assert.match(label, /roses\.md/, `the cited file: ${label}`);
  const said = [];
  for (const w of await browser.$$(`${sources} [data-testid="source-warning"]`)) said.push(await w.getText());
  assert.equal(said.length, 1, `one quotation is not in its source: ${JSON.stringify(said)}`);
  assert.match(said[0], /prune in the summer heat/);

  // The search ran in the project's folder: the tool's result names it.
  const asked = await (await fetch(`${url}/sim/requests`)).json();
  const toolResult = asked
    .filter((r) => r.path === '/api/chat')
    .flatMap((r) => r.body?.messages ?? [])
    .find((m) => m.role === 'tool')?.content;
  assert.match(toolResult ?? '', /\[1\] .*roses\.md, lines 1–3 \(Roses\)/, `the tool's passages: ${toolResult}`);
  const system = asked.find((r) => r.path === '/api/chat' && r.body?.tools?.length)?.body.messages[0].content ?? '';
  assert.match(system, /## Project "Garden"\nAnswer like a gardener\./, 'the project\'s instructions reach the model');

  // A click opens the passage as the index holds it.
  await click(browser, `${sources} [data-testid="source"][data-n="1"]`);
  await eventually(browser, 'the passage', async () => {
    const text = browser.$('[data-testid="passage-text"]');
    return (await text.isExisting()) && (await text.getText()).includes('just above an outward-facing bud');
  });
  await captureWindow(browser, 'project-sources.png');
});
