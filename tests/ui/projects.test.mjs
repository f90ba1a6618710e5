// Projects in the app (docs/projects.md): made and set in their dialog
// (what the core refuses said there), listed in the sidebar above the
// chats in none, each opening to its chats; a new chat in a project lands
// in it; a chat's menu moves it in and out (not while it answers); a
// project deleted says first how many chats move out and folders stop
// being searched; search narrowed to the open project; export, and a
// project's export imported back into a project the toast names; the menus
// and dialogs by keyboard; axe in both themes. The mock keeps projects in
// ui/src/mock/projects.ts (`window.__hearthMock.projects`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const project = (page, name) => page.locator(`[data-testid=project-item][data-project="${name}"]`);
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);
const waitFocus = (page, testid) => page.waitForFunction((t) => document.activeElement?.getAttribute('data-testid') === t, testid);
/** The folder or Save/Open dialog answers next with `path` (null: cancelled; `text`: the picked file's). */
const answer = (page, path, text) => page.evaluate(([p, t]) => window.__hearthMock.dialogs.answers.push(p === null ? null : { path: p, ...(t ? { text: t } : {}) }), [path, text]);

/** Makes a project through the New project dialog and waits for it in the sidebar. */
async function makeProject(page, name, { workspace = '', profile = '', model = '', instructions = '' } = {}) {
  await page.getByTestId('project-new').click();
  const dialog = page.getByTestId('project-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('project-name').fill(name);
  await dialog.getByTestId('project-workspace').fill(workspace);
  if (profile) await dialog.getByTestId('project-profile').selectOption(profile);
  await dialog.getByTestId('project-model').fill(model);
  await dialog.getByTestId('project-instructions').fill(instructions);
  await dialog.getByTestId('project-save').click();
  await dialog.waitFor({ state: 'detached' });
  await project(page, name).waitFor();
}

/** Opens the menu of project `name` and picks `item`. */
async function projectMenu(page, name, item) {
  await project(page, name).getByTestId('project-menu').click();
  await page.getByTestId(item).click();
}

/** The chats listed in project `name` (it must be open), by id. */
const chatsIn = (page, name) => project(page, name).getByTestId('session-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')));
const loose = (page) => page.getByTestId('session-list').getByTestId('session-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')));
const openId = (page) => page.evaluate(() => window.__hearthMock.prefs.last_session);

/** axe's findings on the page as it is, serious enough to fail (minor ones are left to review). */
async function findings(page, where) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations
    .filter((v) => v.impact !== 'minor')
    .map((v) => `${where}: ${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}: ${v.nodes[0]?.failureSummary ?? ''}`);
}

test('a project is made in its dialog: what the core refuses is said there; its settings come back to be changed', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('project-new').click();
    const dialog = page.getByTestId('project-dialog');
    await dialog.waitFor();
    assert.match(await dialog.getByRole('heading').textContent(), /New project/);
    // No folders, export or delete before the project exists.
    assert.equal(await dialog.getByTestId('project-folders').count(), 0);
    assert.equal(await dialog.getByTestId('project-dialog-delete').count(), 0);
    await dialog.getByTestId('project-name').fill('Garden');
    await dialog.getByTestId('project-workspace').fill('garden');
    await dialog.getByTestId('project-profile').selectOption('Agent');
    await dialog.getByTestId('project-model').fill('llama3.2:3b');
    await dialog.getByTestId('project-instructions').fill('Lengths in metres.');
    await dialog.getByTestId('project-instructions-count').filter({ hasText: '18 / 8,000 characters' }).waitFor();
    await dialog.getByTestId('project-save').click();
    await dialog.getByTestId('project-error').filter({ hasText: 'the workspace must be a full path such as /home/you/project, not `garden`' }).waitFor();
    assert.equal(await page.getByTestId('project-item').count(), 0, 'nothing made');

    // The system's folder dialog fills the field, opening at what was typed.
    await answer(page, '/home/user/garden');
    await dialog.getByTestId('project-choose-workspace').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=project-workspace]').value === '/home/user/garden');
    assert.deepEqual(await page.evaluate(() => window.__hearthMock.dialogs.asked), [{ kind: 'folder', name: 'garden' }]);
    await dialog.getByTestId('project-save').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('toast-text').filter({ hasText: 'Made the project Garden' }).waitFor();
    const garden = project(page, 'Garden');
    await garden.waitFor();
    assert.equal((await garden.getByTestId('project-count').textContent()).trim(), '0 chats');
    const made = (await calls(page, 'create_project')).map((c) => c.args.draft);
    assert.deepEqual(made[1], { name: 'Garden', workspace: '/home/user/garden', profile: 'Agent', model: 'llama3.2:3b', instructions: 'Lengths in metres.' });

    // A name taken, whatever its case.
    await page.getByTestId('project-new').click();
    await dialog.getByTestId('project-name').fill('garden');
    await dialog.getByTestId('project-save').click();
    await dialog.getByTestId('project-error').filter({ hasText: 'a project named `garden` exists' }).waitFor();
    // Instructions over 8,000 characters are counted and not sent.
    await dialog.getByTestId('project-name').fill('Long');
    await dialog.getByTestId('project-instructions').fill('x'.repeat(8001));
    await dialog.getByTestId('project-instructions-too-long').waitFor();
    assert.match(await dialog.getByTestId('project-instructions-count').innerText(), /8,001 \/ 8,000/);
    assert.equal(await dialog.getByTestId('project-save').isDisabled(), true);
    await dialog.getByTestId('project-cancel').click();
    await dialog.waitFor({ state: 'detached' });

    // Its settings, from its menu: as saved; a blank model is none.
    await projectMenu(page, 'Garden', 'project-settings');
    await dialog.waitFor();
    assert.match(await dialog.getByRole('heading').textContent(), /Garden/);
    assert.equal(await dialog.getByTestId('project-workspace').inputValue(), '/home/user/garden');
    assert.equal(await dialog.getByTestId('project-profile').inputValue(), 'Agent');
    assert.equal(await dialog.getByTestId('project-model').inputValue(), 'llama3.2:3b');
    assert.equal(await dialog.getByTestId('project-instructions').inputValue(), 'Lengths in metres.');
    await dialog.getByTestId('project-model').fill('');
    await dialog.getByTestId('project-profile').selectOption('');
    await dialog.getByTestId('project-name').fill('Garden 2026');
    await dialog.getByTestId('project-save').click();
    await dialog.waitFor({ state: 'detached' });
    await project(page, 'Garden 2026').waitFor();
    const [updated] = await calls(page, 'update_project');
    assert.equal(updated.args.id, await page.evaluate(() => window.__hearthMock.projects.list[0].id));
    assert.deepEqual(updated.args.draft, { name: 'Garden 2026', workspace: '/home/user/garden', profile: null, model: null, instructions: 'Lengths in metres.' });
  }));

test('a new chat in a project lands in it; a chat moves in and out by its menu; not while it answers', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    const welcome = await openId(page);
    await makeProject(page, 'Garden', { profile: 'Agent' });
    await makeProject(page, 'Taxes');
    assert.equal(await page.getByTestId('session-project').count(), 0, 'the open chat is in no project');
    assert.equal(await page.getByTestId('current-profile').textContent(), 'Chat');

    // New chat in project: put there before it opens.
    await projectMenu(page, 'Garden', 'project-new-chat');
    await page.waitForFunction((w) => window.__hearthMock.prefs.last_session !== w, welcome);
    const fresh = await openId(page);
    const [moved] = await calls(page, 'move_session');
    assert.deepEqual(moved.args, { sessionId: fresh, project: await page.evaluate(() => window.__hearthMock.projects.list.find((p) => p.name === 'Garden').id) });
    await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
    // Opened once in the project: it starts on the project's profile.
    const order = await page.evaluate((id) => window.__hearthMock.calls.map((c, i) => [c.cmd, c.args.sessionId, i]).filter(([cmd, s]) => s === id && (cmd === 'move_session' || cmd === 'open_session')).map(([cmd]) => cmd), fresh);
    assert.deepEqual(order.slice(0, 2), ['move_session', 'open_session']);
    assert.equal(await page.getByTestId('current-profile').textContent(), 'Agent');
    await project(page, 'Garden').locator(`[data-testid=session-item][data-session-id="${fresh}"].current`).waitFor();
    assert.equal(await project(page, 'Garden').getByTestId('project-toggle').getAttribute('aria-expanded'), 'true', 'the project of the open chat is open');
    assert.deepEqual(await loose(page), [welcome]);

    // Welcome into Garden with the pointer: the submenu names each project.
    const item = page.locator(`[data-testid=session-item][data-session-id="${welcome}"]`);
    await item.getByTestId('session-menu').click();
    await page.getByTestId('session-move').click();
    await page.getByTestId('session-move-menu').waitFor();
    await page.locator('[data-testid=session-move-to][data-project=Garden]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-list] [data-testid=session-item]').length === 0);
    assert.deepEqual((await chatsIn(page, 'Garden')).sort(), [fresh, welcome].sort());
    assert.equal((await project(page, 'Garden').getByTestId('project-count').textContent()).trim(), '2 chats');

    // By keyboard: its menu, the submenu by the right arrow, where it is now marked and not offered.
    await item.getByTestId('session-menu').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('session-rename').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'session-move');
    await page.keyboard.press('ArrowRight');
    const here = page.locator('[data-testid=session-move-to][data-project=Garden]');
    await here.waitFor();
    assert.equal(await here.getAttribute('aria-disabled'), 'true');
    assert.match(await here.innerText(), /here now/);
    await waitFocus(page, 'session-move-to');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-project')), 'Taxes', 'the focus skips where it is');
    await page.keyboard.press('Enter');
    await project(page, 'Taxes').waitFor();
    await page.waitForFunction((id) => document.querySelector(`[data-testid=project-item][data-project=Taxes] [data-session-id="${id}"]`), welcome);
    await waitFocus(page, 'session-menu'); // the focus back on its ⋯, in its new place
    // Remove from project, by keyboard: back in the plain list.
    await page.keyboard.press('Enter');
    await page.getByTestId('session-rename').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await waitFocus(page, 'session-move-out');
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => document.querySelector(`[data-testid=session-list] [data-session-id="${id}"]`), welcome);
    assert.deepEqual((await calls(page, 'move_session')).map((c) => c.args.project === null ? null : 'some'), ['some', 'some', 'some', null]);
    assert.equal(await page.evaluate((id) => window.__hearthMock.sessions.get(id).project, welcome), null);

    // A chat answering is not moved: the core's words in a toast; it stays.
    await page.evaluate(() => (window.__hearthMock.config.slowDelayMs = 5000));
    await send(page, 'slow please');
    await page.getByTestId('stop-button').waitFor();
    const answering = project(page, 'Garden').locator(`[data-session-id="${fresh}"]`);
    await answering.getByTestId('session-menu').click();
    await page.getByTestId('session-move-out').click();
    await page.locator('[data-testid=toast].error').filter({ hasText: 'an answer is being written in this chat: move it when it is done' }).waitFor();
    assert.deepEqual(await chatsIn(page, 'Garden'), [fresh]);
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
  }));

test('deleting a project says how many chats move out and folders stop being searched; refused during a sync; its chats come back to Chats', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    const welcome = await openId(page);
    await makeProject(page, 'Garden');
    await projectMenu(page, 'Garden', 'project-new-chat');
    await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
    const fresh = await openId(page);
    const item = page.locator(`[data-testid=session-item][data-session-id="${welcome}"]`);
    await item.getByTestId('session-menu').click();
    await page.getByTestId('session-move').click();
    await page.locator('[data-testid=session-move-to][data-project=Garden]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=project-item] [data-testid=project-count]')?.textContent.trim().startsWith('2'));

    // A knowledge folder of its own, from its dialog (a cancel adds none).
    await projectMenu(page, 'Garden', 'project-settings');
    const dialog = page.getByTestId('project-dialog');
    await dialog.getByTestId('project-folders-empty').waitFor();
    await answer(page, null);
    await dialog.getByTestId('project-folder-add').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.asked.length === 1);
    await dialog.locator('[data-testid=project-folders][aria-busy=false]').waitFor();
    await page.evaluate(() => (window.__hearthMock.knowledge.hold = true));
    await answer(page, '/home/user/garden-notes');
    await dialog.getByTestId('project-folder-add').click();
    await dialog.locator('[data-testid=project-folder][data-path="/home/user/garden-notes"]').waitFor();
    const id = await page.evaluate(() => window.__hearthMock.projects.list[0].id);
    assert.deepEqual((await calls(page, 'knowledge_add_folder')).map((c) => c.args), [{ path: '/home/user/garden-notes', project: id }]);
    // Removing it while its sync runs is refused, said in the dialog.
    await dialog.getByTestId('project-folder-remove').click();
    await dialog.getByTestId('project-folder-error').filter({ hasText: 'a sync is going on' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Asked first, with the counts; Cancel deletes nothing.
    await projectMenu(page, 'Garden', 'project-delete');
    const confirm = page.getByTestId('project-delete-confirm');
    await confirm.waitFor();
    const what = (await confirm.getByTestId('project-delete-what').innerText()).replace(/\s+/g, ' ');
    assert.match(what, /Its 2 chats move out of it, to Chats/);
    assert.match(what, /Its knowledge folder stops being searched \(the files are not touched\)/);
    await confirm.getByTestId('project-delete-cancel').click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal((await calls(page, 'delete_project')).length, 0);

    // A sync running: the core's refusal is shown, the dialog stays.
    await projectMenu(page, 'Garden', 'project-delete');
    await confirm.getByTestId('project-delete-yes').click();
    await confirm.getByTestId('project-delete-error').filter({ hasText: 'a knowledge sync is going on: stop it first, then delete the project' }).waitFor();
    await project(page, 'Garden').waitFor();
    await page.evaluate(() => {
      const k = window.__hearthMock.knowledge;
      k.hold = false;
      while (k.sync.running) k.step();
    });
    await confirm.getByTestId('project-delete-yes').click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByTestId('toast-text').filter({ hasText: 'Deleted the project Garden: 2 chats moved to Chats; 1 knowledge folder is no longer searched' }).waitFor();
    await project(page, 'Garden').waitFor({ state: 'detached' });
    await waitFocus(page, 'project-new'); // its menu's button went with it
    assert.deepEqual((await loose(page)).sort(), [fresh, welcome].sort());
    assert.equal(await page.getByTestId('session-project').count(), 0, 'the open chat is in no project now');
    assert.deepEqual(await page.evaluate(() => window.__hearthMock.knowledge.folders.map((f) => f.path)), [], 'its folder left the index');
  }));

test('search looks in every chat, or in the open project only', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await send(page, 'tomatoes outside');
    await waitIdle(page);
    const outside = await openId(page);
    assert.equal(await page.getByTestId('search-scope').count(), 0, 'no scope without an open project');
    await makeProject(page, 'Garden');
    await projectMenu(page, 'Garden', 'project-new-chat');
    await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
    const inside = await openId(page);
    await send(page, 'tomatoes inside');
    await waitIdle(page);

    const all = page.getByTestId('search-scope-all');
    await page.getByTestId('search-scope').waitFor();
    assert.equal(await all.getAttribute('aria-pressed'), 'true', 'every chat by default');
    /** The project the last search asked for (null: every chat). */
    const asked = () => page.evaluate(() => window.__hearthMock.calls.filter((c) => c.cmd === 'search_sessions').at(-1).args.project);
    const hitsSay = (word) => page.waitForFunction((w) => {
      const hits = [...document.querySelectorAll('[data-testid=search-hit]')];
      return hits.length > 0 && hits.some((h) => h.textContent.includes(w));
    }, word);
    await page.getByTestId('search-input').fill('tomatoes');
    await hitsSay('outside');
    await hitsSay('inside');
    assert.equal(await asked(), null);
    // This project: its chats only, the same words searched again.
    await page.getByTestId('search-scope-project').click();
    const id = await page.evaluate(() => window.__hearthMock.projects.list[0].id);
    await page.waitForFunction(() => {
      const hits = [...document.querySelectorAll('[data-testid=search-hit]')];
      return hits.length > 0 && hits.every((h) => !h.textContent.includes('outside'));
    });
    assert.equal(await asked(), id);
    assert.equal(await page.getByTestId('search-scope-project').getAttribute('aria-pressed'), 'true');
    await page.getByTestId('search-hit').filter({ hasText: 'inside' }).first().click();
    await page.waitForFunction((s) => window.__hearthMock.prefs.last_session === s, inside);
    // Back to every chat.
    await all.click();
    await hitsSay('outside');
    assert.equal(await asked(), null);
    // Open a chat in no project: no scope is offered, and every chat is searched.
    await page.getByTestId('search-input').fill('');
    await page.locator(`[data-testid=session-item][data-session-id="${outside}"] [data-testid=session-open]`).click();
    await page.getByTestId('search-scope').waitFor({ state: 'detached' });
  }));

test('a project exports as Markdown and JSON; its JSON export imports into a project the toast names, with what did not come', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await makeProject(page, 'Garden', { profile: 'Agent', instructions: 'Lengths in metres.' });
    await projectMenu(page, 'Garden', 'project-new-chat');
    await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
    await send(page, 'how deep for garlic?');
    await waitIdle(page);

    await projectMenu(page, 'Garden', 'project-export-md');
    await page.getByTestId('toast-text').filter({ hasText: 'Exported to /home/user/Downloads/Garden.md' }).waitFor();
    // From its dialog too; a cancelled Save writes nothing and says nothing.
    await projectMenu(page, 'Garden', 'project-settings');
    const dialog = page.getByTestId('project-dialog');
    await dialog.getByTestId('project-dialog-export-json').click();
    await page.getByTestId('toast-text').filter({ hasText: 'Exported to /home/user/Downloads/Garden.json' }).waitFor();
    await answer(page, null);
    await dialog.getByTestId('project-dialog-export-json').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.answers.length === 0 && window.__hearthMock.dialogs.asked.length === 3);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const id = await page.evaluate(() => window.__hearthMock.projects.list[0].id);
    assert.deepEqual((await calls(page, 'export_project')).map((c) => c.args), [
      { id, format: 'markdown' },
      { id, format: 'json' },
      { id, format: 'json' },
    ]);
    assert.equal(await page.getByTestId('toast-text').filter({ hasText: 'Exported' }).count(), 2);
    const json = JSON.parse(await page.evaluate(() => window.__hearthMock.dialogs.saved.get('/home/user/Downloads/Garden.json')));
    assert.equal(json.format, 'hearth.project');
    assert.deepEqual(json.project.instructions, 'Lengths in metres.');

    // Imported back, its name taken here and its profile unknown: the toast says both.
    json.project.profile = 'Gardener';
    await answer(page, '/home/user/Downloads/Garden.json', JSON.stringify(json));
    await page.getByTestId('open-settings').click();
    await page.getByTestId('import-button').click();
    const toast = page.getByTestId('toast-text').filter({ hasText: /^Imported 1 conversation from Hearth with \d+ messages into project “Garden \(imported\)”/ });
    await toast.waitFor();
    assert.match(await toast.innerText(), /Note: the project's profile `Gardener` is not here: its chats use the default profile/);
    await page.keyboard.press('Escape');
    const imported = project(page, 'Garden (imported)');
    await imported.locator('[data-testid=session-item].current').waitFor();
    await page.getByTestId('session-project').filter({ hasText: 'Garden (imported)' }).waitFor();
    assert.equal(await page.evaluate(() => window.__hearthMock.projects.list.find((p) => p.name === 'Garden (imported)').profile), null);
  }));

test('projects by keyboard: the disclosure, the menu, the dialog taking the focus and giving it back', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await makeProject(page, 'Garden');
    await projectMenu(page, 'Garden', 'project-new-chat');
    await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
    const garden = project(page, 'Garden');
    const toggle = garden.getByTestId('project-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await garden.getByTestId('project-chats').waitFor({ state: 'detached' });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('Space');
    await garden.getByTestId('project-chats').waitFor();
    assert.equal(await toggle.getAttribute('aria-controls'), await garden.getByTestId('project-chats').getAttribute('id'));

    // Tab to its menu; the arrows reach Project settings…; the dialog takes the focus.
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'project-menu');
    await page.keyboard.press('Enter');
    await waitFocus(page, 'project-new-chat');
    await page.keyboard.press('ArrowDown');
    await waitFocus(page, 'project-settings');
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('project-dialog');
    await dialog.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid=project-dialog]')?.contains(document.activeElement));
    // The focus stays inside: Tab from the last button comes round.
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await page.evaluate(() => document.querySelector('[data-testid=project-dialog]').contains(document.activeElement)), 'the focus stays in the dialog');
    }
    // Esc closes it and gives the focus back to the menu's button; no run was stopped.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await waitFocus(page, 'project-menu');

    // Delete by keyboard: Esc in the confirm cancels, the focus back on the menu's button.
    await page.keyboard.press('Enter');
    await waitFocus(page, 'project-new-chat');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await waitFocus(page, 'project-delete');
    await page.keyboard.press('Enter');
    const confirm = page.getByTestId('project-delete-confirm');
    await confirm.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid=project-delete-confirm]')?.contains(document.activeElement));
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await waitFocus(page, 'project-menu');
    assert.equal((await calls(page, 'delete_project')).length, 0);
    await garden.waitFor();
  }));

for (const theme of ['light', 'dark']) {
  test(`axe finds nothing serious in the sidebar's projects, a chat's move menu, the project dialog and the delete confirm (${theme} theme)`, () =>
    withApp('', async ({ page }) => {
      await page.getByTestId('open-settings').click();
      await page.getByTestId(`theme-${theme}`).click();
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await page.keyboard.press('Escape');
      await page.getByTestId('panel-settings').waitFor({ state: 'detached' });
      await makeProject(page, 'Garden', { workspace: '/home/user/garden' });
      await makeProject(page, 'Taxes');
      await projectMenu(page, 'Garden', 'project-new-chat');
      await page.getByTestId('session-project').filter({ hasText: 'Garden' }).waitFor();
      await page.getByTestId('search-scope').waitFor();
      const found = [...(await findings(page, 'sidebar'))];

      await page.getByTestId('session-list').getByTestId('session-menu').first().click();
      await page.getByTestId('session-move').click();
      await page.getByTestId('session-move-menu').waitFor();
      found.push(...(await findings(page, 'move menu')));
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await page.getByTestId('session-move-menu').waitFor({ state: 'detached' });

      await projectMenu(page, 'Garden', 'project-settings');
      const dialog = page.getByTestId('project-dialog');
      await answer(page, '/home/user/garden-notes');
      await dialog.getByTestId('project-folder-add').click();
      await dialog.getByTestId('project-folder').waitFor();
      await dialog.getByTestId('project-workspace').fill('relative');
      await dialog.getByTestId('project-save').click();
      await dialog.getByTestId('project-error').waitFor();
      found.push(...(await findings(page, 'project dialog')));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await projectMenu(page, 'Garden', 'project-delete');
      await page.getByTestId('project-delete-confirm').waitFor();
      found.push(...(await findings(page, 'delete confirm')));
      await page.keyboard.press('Escape');
      assert.deepEqual(found, []);
    }));
}
