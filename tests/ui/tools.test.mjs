// The Tools panel (MCP servers): a pasted configuration is checked whole
// (a bad one is refused with the shell's reason and nothing changes), a
// saved server starts at once with its tools and their hints or fails with
// what to do; a server can be added with a form and offered to profiles
// from its row;
// its output is shown; a profile names the server and can pre-approve its
// tools; a run that went on without a server says so in its answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('tools panel: paste, check, start, fail with the reason, output; a profile names the server', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-tools').click();
    const config = page.getByTestId('mcp-config');
    await config.fill('{"mcpServers": {"bad name": {"command": "x"}}}');
    await page.getByTestId('mcp-save').click();
    await page.getByTestId('mcp-config-error').filter({ hasText: 'letters, digits' }).waitFor();
    assert.equal(await page.getByTestId('mcp-server').count(), 0, 'nothing saved');

    await config.fill(JSON.stringify({ mcpServers: {
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
      web: { command: 'npx-missing', args: ['web-search'] },
    } }));
    await page.getByTestId('mcp-save').click();
    const everything = page.locator('[data-testid=mcp-server][data-server=everything]');
    await everything.waitFor();
    // No values, nothing to say where they are kept.
    assert.equal(await page.getByTestId('mcp-values-kept').count(), 0);
    assert.match(await everything.textContent(), /npx -y @modelcontextprotocol\/server-everything/);
    // Saved, it starts on its own (no Start to click).
    await page.locator('[data-testid=mcp-server][data-server=everything][data-state=running]').waitFor();
    assert.equal((await calls(page, 'restart_mcp_server')).length, 0);
    assert.deepEqual(await everything.getByTestId('mcp-tool').evaluateAll((els) => els.map((e) => e.dataset.tool)), ['everything__echo', 'everything__write-note']);
    assert.match(await everything.locator('[data-tool=everything__echo]').textContent(), /says it only reads/);
    assert.match(await everything.locator('[data-tool=everything__write-note]').textContent(), /may delete/);
    await everything.getByTestId('mcp-log').click();
    await everything.getByTestId('mcp-output').filter({ hasText: 'STDIO' }).waitFor();

    const web = page.locator('[data-testid=mcp-server][data-server=web]');
    await page.locator('[data-testid=mcp-server][data-server=web][data-state=failed]').waitFor();
    await web.getByTestId('mcp-restart').click();
    await page.locator('[data-testid=mcp-server][data-server=web][data-state=failed]').waitFor();
    assert.match(await web.getByTestId('mcp-detail').textContent(), /`npx-missing` was not found.*PATH.*next try in 2 s/s);

    // A profile names the server; its known tools can then be pre-approved.
    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-profiles').click();
    await page.getByTestId('profile-edit').first().click();
    await page.locator('[data-testid=mcp-choice][data-server=everything]').check();
    await page.locator('[data-testid=auto-approve-choice][data-tool=everything__echo]').check();
    await page.getByTestId('profile-save').click();
    const saved = (await calls(page, 'save_profile')).at(-1).args.profile;
    assert.deepEqual(saved.mcp_servers, ['everything']);
    assert.ok(saved.auto_approve.includes('everything__echo'), JSON.stringify(saved.auto_approve));
  }));

test('an answer given without an MCP server says which and why; an MCP tool card names its server', () =>
  withApp('', async ({ page }) => {
    await send(page, 'mcp down please');
    await waitIdle(page);
    const notice = page.getByTestId('tools-unavailable');
    await notice.waitFor();
    assert.match(await notice.textContent(), /MCP server web.*`npx` was not found.*Node\.js/s);
    assert.match(await page.getByTestId('message-assistant').last().textContent(), /Answered without the web tools\./);
    // Another server's tool card names its tool and its server.
    const card = page.locator('[data-testid=tool-card][data-tool=everything__echo]');
    assert.equal(await card.locator('.tool-name').textContent(), 'echo');
    assert.equal(await card.getByTestId('tool-server').textContent(), 'MCP · everything');
  }));

test('tools panel: skills with the reason a folder is not one, hooks, and whether each tool asks; a profile chooses its skills', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-tools').click();
    const skills = page.getByTestId('skills');
    await skills.getByTestId('skill').first().waitFor();
    assert.equal(await skills.getByTestId('skills-folder').textContent(), '/home/user/.local/share/hearth/skills');
    assert.deepEqual(await skills.getByTestId('skill').evaluateAll((els) => els.map((e) => e.dataset.skill)), ['commit-messages', 'pdf-forms']);
    assert.match(await skills.locator('[data-skill=pdf-forms]').textContent(), /Fills PDF forms\..*Needs: python3 and pdftk/s);
    assert.match(await skills.getByTestId('skill-problem').textContent(), /Drafts.*Not offered: the name "Drafts" does not fit the format/s);
    const before = (await calls(page, 'list_skills')).length;
    await skills.getByTestId('skills-reload').click();
    await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'list_skills').length > n, before, { timeout: 10_000 });

    const hooks = page.getByTestId('hooks');
    assert.equal(await hooks.getByTestId('hooks-summary').textContent(), '2 before tool calls, 0 after, 0 before model calls.');
    assert.match(await hooks.getByTestId('hooks-config').textContent(), /no_rm\.py/);
    // A hook the model could rewrite (its script in a workspace) is named, one line each.
    assert.deepEqual(await hooks.getByTestId('hooks-warning').allTextContents(), [
      "the hook `python3 check.py` runs `check.py` from the run's workspace, where the model can rewrite it: give its full path, outside every workspace",
    ]);

    // Each MCP tool says whether it asks: everywhere, or not in a profile that pre-approved it.
    await page.getByTestId('mcp-config').fill(JSON.stringify({ mcpServers: { everything: { command: 'npx', args: ['everything'] } } }));
    await page.getByTestId('mcp-save').click();
    await page.locator('[data-testid=mcp-server][data-server=everything]').getByTestId('mcp-restart').click();
    const echo = page.locator('[data-testid=mcp-tool][data-tool=everything__echo]');
    await echo.waitFor();
    assert.equal(await echo.getByTestId('mcp-tool-policy').textContent(), 'asks you every time');

    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-profiles').click();
    await page.getByTestId('profile-edit').first().click();
    await page.locator('[data-testid=mcp-choice][data-server=everything]').check();
    await page.locator('[data-testid=auto-approve-choice][data-tool=everything__echo]').check();
    await page.getByTestId('skills-list').check();
    await page.locator('[data-testid=skill-choice][data-skill=pdf-forms]').check();
    // Chat offers no tools, so the skills could not be loaded: it says so.
    await page.getByTestId('skills-unreachable').waitFor();
    await page.getByTestId('tools-list').check();
    await page.locator('[data-testid=tool-choice][value=load_skill]').check();
    assert.equal(await page.getByTestId('skills-unreachable').count(), 0);
    await page.getByTestId('profile-save').click();
    const saved = (await calls(page, 'save_profile')).at(-1).args.profile;
    assert.deepEqual(saved.skills, ['pdf-forms']);
    assert.deepEqual(saved.tools, ['load_skill']);

    await page.getByTestId('panel-close').click();
    await page.getByTestId('open-tools').click();
    assert.equal(await page.locator('[data-testid=mcp-tool][data-tool=everything__echo]').getByTestId('mcp-tool-policy').textContent(), 'runs without asking in Chat; asks elsewhere');
  }));

test('a failed tool call says "failed" live, once stored, and when its session is opened again', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'tool fails');
    const card = page.locator('[data-testid=tool-card][data-tool=write_file]');
    await card.and(page.locator('[data-outcome=error]')).waitFor();
    await waitIdle(page);
    assert.equal(await card.getAttribute('data-outcome'), 'error');
    assert.match(await card.textContent(), /failed/);
    assert.doesNotMatch(await card.textContent(), /\bdone\b/);
    const id = await page.locator('[data-testid=session-item].current').getAttribute('data-session-id');
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Welcome' }).waitFor();
    await page.locator(`[data-testid=session-item][data-session-id="${id}"]`).getByTestId('session-open').click();
    await card.waitFor();
    assert.equal(await card.getAttribute('data-outcome'), 'error');
    assert.match(await card.textContent(), /failed/);
  }));

test('a server added with the form starts at once and is offered in the profiles the user ticks', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-tools').click();
    await page.getByTestId('mcp-add-name').fill('everything');
    await page.getByTestId('mcp-add-runs').fill('npx -y @modelcontextprotocol/server-everything');
    await page.getByTestId('mcp-add-save').click();
    // Saved as JSON other apps read, and started without a click on Start.
    const saved = (await calls(page, 'save_mcp_config')).at(-1).args.config;
    assert.deepEqual(JSON.parse(saved).mcpServers.everything, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
    const server = page.locator('[data-testid=mcp-server][data-server=everything]');
    await server.and(page.locator('[data-state=running]')).waitFor();
    assert.equal(await server.getByTestId('mcp-tool').count(), 2);
    assert.equal((await calls(page, 'restart_mcp_server')).length, 0, 'no Start was needed');
    // No profile offers it yet, and the row says so; ticking one does.
    await server.getByTestId('mcp-offer-none').waitFor();
    const before = (await calls(page, 'save_profile')).length;
    await server.locator('[data-testid=mcp-offer-profile][data-profile=Agent]').check();
    await page.waitForFunction((n) => window.__hearthMock.calls.filter((c) => c.cmd === 'save_profile').length > n, before, { timeout: 10_000 });
    const profile = (await calls(page, 'save_profile')).at(-1).args.profile;
    assert.equal(profile.name, 'Agent');
    assert.deepEqual(profile.mcp_servers, ['everything']);
    await server.getByTestId('mcp-offer-none').waitFor({ state: 'detached' });
  }));

test('after a save with a token, the panel says where the values are kept', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-tools').click();
    await page.getByTestId('mcp-config').fill(JSON.stringify({ mcpServers: {
      remote: { url: 'https://mcp.example.invalid/mcp', headers: { Authorization: 'Bearer tok-1' } },
    } }));
    await page.getByTestId('mcp-save').click();
    const note = page.getByTestId('mcp-values-kept');
    await note.waitFor();
    assert.match(await note.textContent(), /^Saved environment and header values are kept in Hearth's database, readable by your account only: /);
  }));

test('tools panel: a tool that shows an app, and one for its app only, say so', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('open-tools').click();
    await page.getByTestId('mcp-config').fill(JSON.stringify({ mcpServers: { clock: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-basic-vanillajs', '--stdio'] } } }));
    await page.getByTestId('mcp-save').click();
    const clock = page.locator('[data-testid=mcp-server][data-server=clock][data-state=running]');
    await clock.waitFor();
    const hint = (tool) => clock.locator(`[data-tool="${tool}"]`).textContent();
    assert.match(await hint('clock__get-time'), /shows an app/);
    assert.doesNotMatch(await hint('clock__get-time'), /never offered to the model/);
    assert.match(await hint('clock__refresh'), /for its app only: never offered to the model/);
  }));
