// An MCP server added in the real app's Tools panel (server-everything from
// npm, run by the app itself), named in the profile, and its tool called in
// a run against hearth-sim: the approval card names the server, the tool
// card shows the server's answer. The save is confirmed in a native dialog
// (security review N11), declined once first: nothing is saved. Run
// through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { captureWindow, eventually, offerServerInChat, started, startApp, typeInto } from './support.mjs';
import { answer } from './x11.mjs';

const START_SERVERS = 'Hearth: start MCP servers?';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
});

const everything = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

async function click(selector) {
  const el = browser.$(selector);
  await el.waitForClickable({ timeout: 30_000 });
  await el.click();
}

test('a server added in the Tools panel gives a tool card in a run', async () => {
  browser = await startApp();
  await started(browser);
  await click('[data-testid="open-tools"]');
  const config = browser.$('[data-testid="mcp-config"]');
  await config.waitForExist({ timeout: 30_000 });
  await config.setValue(JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }));
  // Declined in the native dialog: nothing saved, and the panel says so.
  await click('[data-testid="mcp-save"]');
  await answer(START_SERVERS, 'Escape');
  await eventually(browser, 'the panel says the save was declined', async () =>
    (await browser.$('[data-testid="mcp-config-error"]').isExisting()) &&
    (await browser.$('[data-testid="mcp-config-error"]').getText()).includes('was declined'),
  );
  assert.equal(await browser.$('[data-testid="mcp-server"][data-server="everything"]').isExisting(), false, 'nothing was saved');
  // Started: Alt+S is the dialog's "Start".
  await click('[data-testid="mcp-save"]');
  await answer(START_SERVERS, 'alt+s');
  await eventually(browser, 'the server is listed', async () =>
    browser.$('[data-testid="mcp-server"][data-server="everything"]').isExisting(),
  );
  await click('[data-testid="panel-close"]');

  // The default profile (Chat, the session's) offers every tool and the server.
  await offerServerInChat(browser, 'everything');

  await typeInto(browser, '[data-testid="composer-input"]', 'Please use the echo tool.');
  await click('[data-testid="send-button"]');
  // The server starts for this run; the call asks first, naming it.
  const reach = await eventually(browser, 'the approval names the server', async () => {
    // A call that failed before it was asked (an unknown tool: the run
    // did not offer the server's tools) ends the wait, with its reason.
    const failed = browser.$('[data-testid="tool-card"][data-outcome="error"]');
    if (await failed.isExisting()) {
      await failed.$('summary').click();
      const out = failed.$('[data-testid="tool-output"]');
      return { failed: (await out.isExisting()) ? await out.getText() : '(no output shown)' };
    }
    const el = browser.$('[data-testid="approval-reach"]');
    return (await el.isExisting()) ? el.getText() : false;
  }, 60_000);
  assert.equal(typeof reach, 'string', `the call failed before any approval: ${JSON.stringify(reach)}`);
  assert.match(reach, /MCP server "everything"/);
  await click('[data-testid="approve-once"]');
  const card = '[data-testid="tool-card"][data-tool="everything__echo"][data-outcome="ok"]';
  await eventually(browser, 'the tool card shows the result', async () => browser.$(card).isExisting(), 60_000);
  await browser.$(`${card} summary`).click();
  const output = await eventually(browser, 'the output is shown', async () => {
    const el = browser.$(`${card} [data-testid="tool-output"]`);
    return (await el.isExisting()) ? el.getText() : false;
  });
  assert.match(output, /Echo: from the desktop/);
  await eventually(browser, 'the answer completes', async () => {
    const done = await browser.$$('[data-testid="message-assistant"][data-status="done"]');
    for (const d of done) if ((await d.getText()).includes('The server echoed it.')) return true;
    return false;
  });
  await captureWindow(browser, 'mcp.png');
});
