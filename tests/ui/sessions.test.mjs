// Sidebar sessions (new, rename, delete + undo, search, export), profiles
// (switch + transcript marker, editor, persona) and the theme preference.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('new, rename, delete with undo, export', () =>
  withApp('', async ({ page }) => {
    // The last session is reopened at start.
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('new-session').click();
    await page.getByTestId('session-item').nth(1).waitFor();
    const item = page.locator('[data-testid=session-item].current');
    await item.getByTestId('session-menu').click();
    await item.getByTestId('session-rename').click();
    await page.getByTestId('rename-input').fill('Renamed chat');
    await page.getByTestId('rename-input').press('Enter');
    await page.getByTestId('session-item').filter({ hasText: 'Renamed chat' }).waitFor();
    assert.equal(await page.getByTestId('session-title').textContent(), 'Renamed chat');

    const renamed = page.getByTestId('session-item').filter({ hasText: 'Renamed chat' });
    await renamed.getByTestId('session-menu').click();
    await renamed.getByTestId('session-export-md').click();
    await page.getByTestId('toast-text').filter({ hasText: 'Exported to /home/user/Downloads/Renamed chat.md' }).waitFor();
    // The person picks another place in the Save dialog, then cancels one.
    await page.evaluate(() => window.__hearthMock.dialogs.answers.push({ path: '/tmp/mine.json' }, null));
    await renamed.getByTestId('session-menu').click();
    await renamed.getByTestId('session-export-json').click();
    await page.getByTestId('toast-text').filter({ hasText: 'Exported to /tmp/mine.json' }).waitFor();
    await renamed.getByTestId('session-menu').click();
    await renamed.getByTestId('session-export-md').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.answers.length === 0 && window.__hearthMock.dialogs.asked.length === 3);
    const mock = await page.evaluate(() => ({ asked: window.__hearthMock.dialogs.asked, saved: [...window.__hearthMock.dialogs.saved.keys()] }));
    // Each dialog suggested the title as the name; the cancelled one wrote nothing.
    assert.deepEqual(mock.asked, [
      { kind: 'save', name: 'Renamed chat.md' },
      { kind: 'save', name: 'Renamed chat.json' },
      { kind: 'save', name: 'Renamed chat.md' },
    ]);
    assert.deepEqual(mock.saved, ['/home/user/Downloads/Renamed chat.md', '/tmp/mine.json']);
    assert.equal(await page.getByTestId('toast-text').filter({ hasText: 'Exported' }).count(), 2);

    await renamed.getByTestId('session-menu').click();
    await renamed.getByTestId('session-delete').click();
    await renamed.waitFor({ state: 'detached' });
    // The open session went: another one opens, and the composer works.
    await page.locator('[data-testid=session-item].current').waitFor();
    assert.notEqual(await page.getByTestId('session-title').textContent(), 'Renamed chat');
    assert.equal(await page.getByTestId('composer-input').isEnabled(), true);
    await page.getByTestId('toast').filter({ hasText: 'Deleted' }).getByTestId('toast-action').click();
    await page.getByTestId('session-item').filter({ hasText: 'Renamed chat' }).waitFor();
    assert.equal((await calls(page, 'restore_session')).length, 1);
    // Undo brings it back where the user was.
    await page.getByTestId('session-title').filter({ hasText: 'Renamed chat' }).waitFor();
  }));

test('a clicked notice opens its session, in front of an open panel', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    const first = await page.evaluate(() => window.__hearthMock.prefs.last_session);
    assert.ok(first, 'the reopened session is remembered');
    // The person went to a new chat and opened a panel.
    await page.getByTestId('new-session').click();
    await page.waitForFunction((id) => window.__hearthMock.prefs.last_session !== id, first);
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor({ state: 'detached' });
    await page.getByTestId('open-profiles').click();
    await page.getByTestId('panel-close').waitFor();
    // The shell reports a click on the notice of the first session's run.
    assert.equal(await page.evaluate((id) => window.__hearthMock.pageEvent({ kind: 'open_session', session_id: id }), first), true, 'the page listens');
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('panel-close').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => window.__hearthMock.prefs.last_session), first);
    assert.equal((await calls(page, 'page_events')).length, 1, 'one listener, given once the first session was open');
  }));

test('search highlights hits and opens the session', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('search-input').fill('there');
    const hit = page.getByTestId('search-hit').first();
    await hit.waitFor();
    assert.equal(await hit.locator('mark').first().textContent(), 'there');
    await hit.click();
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('search-input').fill('zzzz-nothing');
    await page.getByTestId('search-empty').waitFor();
  }));

test('profile switch from the header marks the transcript; a live run_started switch too', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-user').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('profile-switcher').click();
    await page.locator('[data-testid=profile-option][data-profile=Agent]').click();
    await page.getByTestId('switch-divider').filter({ hasText: 'Switched to Agent' }).waitFor();
    assert.equal(await page.getByTestId('current-profile').textContent(), 'Agent');
    assert.deepEqual((await calls(page, 'switch_profile')).map((c) => c.args.name), ['Agent']);
    await send(page, 'hi');
    await waitIdle(page);
    // The divider stays where the switch happened (the store's switches).
    assert.equal(await page.getByTestId('switch-divider').count(), 1);
    // A switch made elsewhere (a tool) shows up from run_started.
    await page.evaluate(() => {
      const m = window.__hearthMock;
      m.sessions.get(m.prefs.last_session).profile = 'Chat';
    });
    await send(page, 'hi again');
    await page.getByTestId('switch-divider').filter({ hasText: 'Switched to Chat' }).waitFor();
    await waitIdle(page);
  }));

test('profile editor and persona', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-profiles').click();
    await page.locator('[data-testid=profile-item][data-profile=Chat]').getByTestId('profile-edit').click();
    await page.getByTestId('profile-name').fill('Coder');
    await page.getByTestId('profile-model').fill('llama3.2:3b');
    assert.equal(await page.locator('#installed-models option').count(), 2);
    await page.getByTestId('tools-list').check();
    await page.getByTestId('tool-choice').first().check();
    await page.getByTestId('profile-planning').check();
    await page.getByTestId('profile-temperature').fill('0.5');
    await page.getByTestId('profile-think').selectOption('high');
    await page.getByTestId('profile-save').click();
    await page.locator('[data-testid=profile-item][data-profile=Coder]').waitFor();
    const saved = (await calls(page, 'save_profile'))[0].args;
    assert.equal(saved.previousName, 'Chat');
    assert.deepEqual(
      { name: saved.profile.name, model: saved.profile.model, tools: saved.profile.tools, planning: saved.profile.planning_enabled, t: saved.profile.temperature, think: saved.profile.think },
      { name: 'Coder', model: 'llama3.2:3b', tools: ['read_file'], planning: true, t: 0.5, think: 'high' },
    );
    await page.getByTestId('persona-input').fill('Be kind.');
    await page.getByTestId('persona-save').click();
    await page.getByTestId('toast-text').filter({ hasText: 'Persona saved' }).waitFor();
    assert.equal((await calls(page, 'set_persona'))[0].args.persona, 'Be kind.');
    await page.getByTestId('panel-close').click();
  }));

test('profile editor: workspace and tools that run without asking (run_shell warned)', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-profiles').click();
    await page.locator('[data-testid=profile-item][data-profile=Agent]').getByTestId('profile-edit').click();
    const workspace = page.getByTestId('profile-workspace');
    assert.equal(await workspace.inputValue(), '/home/user/work');
    await page.getByText('File tools and run_shell work only inside this folder.').waitFor();
    const choice = (tool) => page.locator(`[data-testid=auto-approve-choice][data-tool=${tool}]`);
    assert.ok(await choice('read_file').isChecked());
    await choice('write_file').check();
    assert.equal(await page.getByTestId('auto-approve-shell-warning').count(), 0);
    await choice('run_shell').check();
    assert.match(await page.getByTestId('auto-approve-shell-warning').textContent(), /without asking/);
    await choice('run_shell').uncheck();
    await page.getByTestId('auto-approve-shell-warning').waitFor({ state: 'detached' });
    await choice('run_shell').check();
    await workspace.fill('  /home/user/project  ');
    await page.getByTestId('profile-save').click();
    await page.getByTestId('profile-list').waitFor();
    const saved = (await calls(page, 'save_profile'))[0].args;
    assert.equal(saved.previousName, 'Agent');
    assert.equal(saved.profile.workspace, '/home/user/project');
    assert.deepEqual([...saved.profile.auto_approve].sort(), ['read_file', 'run_shell', 'write_file']);
    // An empty folder is no workspace (null), not "".
    await page.locator('[data-testid=profile-item][data-profile=Agent]').getByTestId('profile-edit').click();
    assert.ok(await choice('run_shell').isChecked());
    await workspace.fill('');
    await page.getByTestId('profile-save').click();
    await page.getByTestId('profile-list').waitFor();
    assert.equal((await calls(page, 'save_profile'))[1].args.profile.workspace, null);
  }));

test('profile editor: the token limit and turning the sandbox off (warned) are saved', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-profiles').click();
    await page.locator('[data-testid=profile-item][data-profile=Agent]').getByTestId('profile-edit').click();
    const limit = page.getByTestId('profile-max-output');
    assert.equal(await limit.inputValue(), '16384');
    await limit.fill('2048');
    assert.equal(await page.getByTestId('sandbox-off-warning').count(), 0);
    await page.getByTestId('profile-sandbox-off').check();
    assert.match(await page.getByTestId('sandbox-off-warning').textContent(), /full rights/);
    await page.getByTestId('profile-save').click();
    await page.getByTestId('profile-list').waitFor();
    const saved = (await calls(page, 'save_profile'))[0].args.profile;
    assert.equal(saved.max_output_tokens, 2048);
    assert.equal(saved.sandbox_off, true);
    await page.locator('[data-testid=profile-item][data-profile=Agent]').getByTestId('profile-edit').click();
    assert.ok(await page.getByTestId('profile-sandbox-off').isChecked());
    await page.getByTestId('sandbox-off-warning').waitFor();
  }));

test('profile editor: history turns and input guard are saved and loaded back', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-profiles').click();
    const edit = (name) => page.locator(`[data-testid=profile-item][data-profile=${name}]`).getByTestId('profile-edit').click();
    const turns = page.getByTestId('profile-history-turns');
    const mode = page.getByTestId('profile-input-guard');
    const save = page.getByTestId('profile-save');
    // A new profile: all turns, the guard warns; the model this chat uses,
    // no tools until chosen, as many steps as the built-in profiles
    // (defect 23).
    await page.getByTestId('profile-new').click();
    assert.equal(await turns.inputValue(), '');
    assert.equal(await mode.inputValue(), 'warn');
    const using = await page.evaluate(() => {
      const m = window.__hearthMock;
      return m.profiles.find((p) => p.name === m.defaultProfile)?.model ?? m.profiles[0].model;
    });
    assert.ok(using, 'the mock names a model');
    assert.equal(await page.getByTestId('profile-model').inputValue(), using);
    assert.ok(await page.getByTestId('tools-none').isChecked());
    assert.equal(await page.getByTestId('profile-max-iterations').inputValue(), '20');
    // The workspace is chosen in the system's folder dialog (defect 24):
    // a cancel leaves the field, a choice fills it.
    await page.evaluate(() => window.__hearthMock.dialogs.answers.push(null, { path: '/home/user/recipes' }));
    await page.getByTestId('choose-workspace').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.asked.length === 1);
    assert.equal(await page.getByTestId('profile-workspace').inputValue(), '');
    await page.getByTestId('choose-workspace').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=profile-workspace]').value === '/home/user/recipes');
    assert.deepEqual(await page.evaluate(() => window.__hearthMock.dialogs.asked), [{ kind: 'folder' }, { kind: 'folder' }]);
    assert.match(await page.getByTestId('input-guard-hint').textContent(), /treat the flagged text as data/);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await edit('Agent');
    assert.equal(await turns.inputValue(), '20');
    assert.equal(await mode.inputValue(), 'block');
    assert.match(await page.getByTestId('input-guard-hint').textContent(), /not sent/);
    // Positive whole numbers only.
    for (const bad of ['0', '-2', '2.5']) {
      await turns.fill(bad);
      await page.getByTestId('history-turns-invalid').waitFor();
      assert.ok(await save.isDisabled(), bad);
    }
    await turns.fill('6');
    await page.getByTestId('history-turns-invalid').waitFor({ state: 'detached' });
    await mode.selectOption('log');
    assert.match(await page.getByTestId('input-guard-hint').textContent(), /only recorded in the trace/);
    await save.click();
    await page.getByTestId('profile-list').waitFor();
    const first = (await calls(page, 'save_profile'))[0].args;
    assert.equal(first.previousName, 'Agent');
    assert.deepEqual({ turns: first.profile.history_turns, guard: first.profile.input_guard }, { turns: 6, guard: 'log' });
    assert.match(await page.locator('[data-testid=profile-item][data-profile=Agent]').textContent(), /last 6 turns · guard log/);

    // Loaded back from what list_profiles returns; empty is all (null).
    await edit('Agent');
    assert.equal(await turns.inputValue(), '6');
    assert.equal(await mode.inputValue(), 'log');
    await turns.fill('');
    await mode.selectOption('off');
    await save.click();
    await page.getByTestId('profile-list').waitFor();
    const second = (await calls(page, 'save_profile'))[1].args.profile;
    assert.deepEqual({ turns: second.history_turns, guard: second.input_guard }, { turns: null, guard: 'off' });
    const stored = await page.evaluate(() => window.__hearthMock.profiles.find((p) => p.name === 'Agent'));
    assert.deepEqual({ turns: stored.history_turns, guard: stored.input_guard }, { turns: null, guard: 'off' });
  }));

test('theme is applied and persisted', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-settings').click();
    await page.getByTestId('theme-dark').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.getByTestId('theme-light').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    const prefs = (await calls(page, 'set_prefs')).map((c) => c.args.prefs.theme);
    assert.deepEqual(prefs.slice(-2), ['dark', 'light']);
  }));

test('reopening a session while its run goes on keeps events that came while it was read', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    // tool_started at ~1.5 s, the approval question at ~3 s.
    await page.evaluate(() => (window.__hearthMock.config.tickMs = 1500));
    await send(page, 'write a note');
    await page.getByTestId('stop-button').waitFor();
    const id = await page.evaluate(() => [...window.__hearthMock.runs.values()][0].session);
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('message-assistant').getByText('Hi! How can I help?').waitFor();
    // The snapshot is taken at once, its reply comes once the question
    // has been asked meanwhile.
    await page.evaluate(() => window.__hearthMock.holdOpen());
    await page.locator(`[data-testid=session-item][data-session-id="${id}"] [data-testid=session-open]`).click();
    await page.waitForFunction(() => [...window.__hearthMock.runs.values()][0].events.some((e) => e.type === 'approval_requested'), null, { timeout: 10_000 });
    await page.evaluate(() => window.__hearthMock.releaseOpen());
    const card = page.locator('[data-testid=tool-card][data-tool=write_file]');
    await card.getByTestId('approval').waitFor({ timeout: 10_000 });
    const asked = await page.evaluate(() => [...window.__hearthMock.runs.values()][0].events.filter((e) => e.type === 'approval_requested').length);
    assert.equal(asked, 1);
    await card.getByTestId('approve-once').click();
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().getByText('I saved your note').waitFor();
  }));

test('a new session is named as soon as its title is written, in the sidebar and the header', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('transcript-empty').waitFor();
    await send(page, 'plan a trip to Lisbon');
    await waitIdle(page);
    // Told after the run's end (the title worker runs then), on the run's
    // own stream: no second turn and no reload needed.
    await page.getByTestId('session-title').filter({ hasText: 'About plan a trip to' }).waitFor();
    await page.locator('[data-testid=session-item]').filter({ hasText: 'About plan a trip to' }).waitFor();
  }));

test('conversations from ChatGPT import from Settings and from the palette; a stranger file says why', () =>
  withApp('', async ({ page }) => {
    const chatgpt = JSON.stringify([
      {
        title: 'Tea brewing',
        current_node: 'a',
        mapping: {
          r: { id: 'r', parent: null, children: ['u'], message: null },
          u: { id: 'u', parent: 'r', children: ['a'], message: { author: { role: 'user' }, content: { parts: ['How long for green tea?'] } } },
          a: { id: 'a', parent: 'u', children: [], message: { author: { role: 'assistant' }, content: { parts: ['Three minutes.'] } } },
        },
      },
    ]);
    // The Open dialog answers with the file the person picked.
    await page.evaluate((text) => window.__hearthMock.dialogs.answers.push({ path: '/home/user/Downloads/conversations.json', text }), chatgpt);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('import-button').click();
    await page.getByTestId('toast-text').filter({ hasText: 'Imported 1 conversation from ChatGPT with 2 messages' }).waitFor();
    await page.getByTestId('session-item').filter({ hasText: 'Tea brewing' }).waitFor();
    await page.getByTestId('session-title').filter({ hasText: 'Tea brewing' }).waitFor();
    await page.getByTestId('message-user').filter({ hasText: 'How long for green tea?' }).waitFor();

    // Each step waits for the one before it: under load a key typed before
    // the palette has the focus goes elsewhere, and Enter then runs nothing.
    await page.keyboard.press('Escape');
    await page.getByTestId('panel-settings').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+k');
    const palette = page.getByTestId('palette');
    await palette.waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'palette-input');
    await page.keyboard.type('import');
    await page.waitForFunction(() => {
      const items = [...document.querySelectorAll('[data-testid=palette-item]')];
      return items.length === 1 && items[0].getAttribute('data-action') === 'import';
    });
    await page.evaluate(() => window.__hearthMock.dialogs.answers.push({ path: '/tmp/notes.json', text: '{"hello": 1}' }));
    await page.keyboard.press('Enter');
    await page.getByTestId('toast-text').filter({ hasText: "Import failed: this is not an export Hearth reads: expected ChatGPT's conversations.json" }).waitFor();

    // The dialog cancelled: nothing imported, nothing said.
    const sessionCount = await page.getByTestId('session-item').count();
    const failures = await page.getByTestId('toast-text').filter({ hasText: 'Import failed' }).count();
    await page.evaluate(() => window.__hearthMock.dialogs.answers.push(null));
    await page.getByTestId('open-settings').click();
    await page.getByTestId('import-button').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.answers.length === 0 && window.__hearthMock.dialogs.asked.length === 3);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.getByTestId('session-item').count(), sessionCount);
    assert.equal(await page.getByTestId('toast-text').filter({ hasText: 'Imported 0' }).count(), 0);
    assert.ok((await page.getByTestId('toast-text').filter({ hasText: 'Import failed' }).count()) <= failures);
    assert.deepEqual(await page.evaluate(() => window.__hearthMock.dialogs.asked), [{ kind: 'open' }, { kind: 'open' }, { kind: 'open' }]);
  }));
