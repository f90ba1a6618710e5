// MCP Apps in the real app (docs/security.md, "MCP Apps"): the MCP Apps
// project's own example server (`server-basic-vanillajs` from npm, run by
// the app) is added in the Tools panel and its `get-time` tool called in a
// run against hearth-sim. Under the tool card the server's own app shows,
// served through Hearth's frame on the hearth-artifact: scheme: it got the
// call's result (the time it shows is the tool's structured content), a
// script in it reaches neither the app's page nor the network, and its
// "Get Server Time" button calls the tool again only after the person
// allows it in a native dialog (declined first: the time stays). Run
// through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import { captureWindow, eventually, offerServerInChat, started, startApp, typeInto } from './support.mjs';
import { answer } from './x11.mjs';

const START_SERVERS = 'Hearth: start MCP servers?';
const APP_CALL = 'Hearth: let an app call a tool?';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

// A listener on loopback that counts what reaches it: the app's fetch
// must not (a closed port would refuse it whether or not the CSP held).
const hits = [];
const listener = http.createServer((req, res) => {
  hits.push(req.url);
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.end('reached');
});

after(async () => {
  await browser?.deleteSession();
  listener.close();
});

const basic = path.resolve('node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');

async function click(selector) {
  const el = browser.$(selector);
  await el.waitForClickable({ timeout: 30_000 });
  await el.click();
}

/** Inside the app's own document (the inner frame of Hearth's frame), runs `inside`, then back to the page. */
async function inApp(card, inside) {
  const outer = await browser.$(`${card} [data-testid="mcp-app-frame"]`);
  await outer.waitForExist({ timeout: 30_000 });
  await browser.switchFrame(outer);
  try {
    const inner = await browser.$('iframe');
    await inner.waitForExist({ timeout: 30_000 });
    await browser.switchFrame(inner);
    return await inside();
  } finally {
    await browser.switchFrame(null);
  }
}

/**
 * Presses the app's "Get Server Time" button. By the element's own click,
 * not the pointer: the transcript may still move as the answer's last
 * parts render, and a pointer click aimed a moment earlier lands beside it.
 */
function pressGetTime(card) {
  return inApp(card, async () => {
    const button = await browser.$('#get-time-btn');
    await button.waitForExist({ timeout: 30_000 });
    await browser.execute(() => document.getElementById('get-time-btn').click());
  });
}

/** What the app shows as the server's time. */
function appText(card) {
  return inApp(card, async () => {
    const el = await browser.$('#server-time');
    await el.waitForExist({ timeout: 30_000 });
    return el.getText();
  });
}

/** The time the app shows, once it shows one that is not `not`. */
function shownTime(card, not) {
  return eventually(browser, `the app shows a time other than ${JSON.stringify(not)}`, async () => {
    const text = await appText(card);
    return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(text) && text !== not ? text : false;
  }, 60_000);
}

test('an MCP server\'s app shows its call\'s result, reaches nothing, and calls its tool only when allowed', async (t) => {
  browser = await startApp();
  await started(browser);
  await click('[data-testid="open-tools"]');
  const config = browser.$('[data-testid="mcp-config"]');
  await config.waitForExist({ timeout: 30_000 });
  await config.setValue(JSON.stringify({ mcpServers: { basic: { command: process.execPath, args: [basic, '--stdio'] } } }));
  await click('[data-testid="mcp-save"]');
  await answer(START_SERVERS, 'alt+s');
  await eventually(browser, 'the server is listed', async () => browser.$('[data-testid="mcp-server"][data-server="basic"]').isExisting(), 60_000);
  await click('[data-testid="panel-close"]');

  // The default profile (Chat, the session's) offers every tool and the server.
  await offerServerInChat(browser, 'basic');

  await typeInto(browser, '[data-testid="composer-input"]', 'Please show me the server time app.');
  await click('[data-testid="send-button"]');
  await eventually(browser, 'the call is asked', async () => browser.$('[data-testid="approve-once"]').isExisting(), 60_000);
  await click('[data-testid="approve-once"]');
  const card = '[data-testid="tool-card"][data-tool="basic__get-time"][data-outcome="ok"]';
  await eventually(browser, 'the tool card shows the result', async () => browser.$(card).isExisting(), 60_000);
  // The card opens by itself for its app (ToolCard's `appShown`). Not
  // clicked open: read closed, it could open itself before the click lands,
  // and the click would close it (a loaded run saw the card stay closed).
  await eventually(browser, 'the card opens for its app', async () => (await browser.$(card).getAttribute('open')) !== null, 60_000);
  const output = await eventually(browser, 'the output is shown', async () => {
    const el = browser.$(`${card} [data-testid="tool-output"]`);
    return (await el.isExisting()) ? el.getText() : false;
  });

  // The run ends ("Here is the server's clock."): its stored card takes
  // the live one's place, and the app shown there is the one used below.
  await eventually(browser, 'the answer completes', async () => {
    for (const d of await browser.$$('[data-testid="message-assistant"][data-status="done"]')) if ((await d.getText()).includes("the server's clock")) return true;
    return false;
  }, 60_000);

  // The app, from the server, through Hearth's frame, once the person
  // runs it.
  assert.equal(await browser.$(`${card} [data-testid="mcp-app-frame"]`).isExisting(), false, 'the app waits for the person');
  await click(`${card} [data-testid="mcp-app-show"]`);
  const frame = await browser.$(`${card} [data-testid="mcp-app-frame"]`);
  await frame.waitForExist({ timeout: 30_000 });
  assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
  assert.match(await frame.getAttribute('src'), /^hearth-artifact:\/\/localhost\/artifact\/mcp-app\.html$/);
  // It shows the time the model's call returned: the result reached it
  // whole (the example reads `structuredContent.time`, not the text).
  const first = await shownTime(card, '');
  assert.equal(first, output.trim(), 'the app shows the call\'s own result');

  // What a script of the app can reach.
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = listener.address().port;
  const inside = await inApp(card, () =>
    browser.executeAsync((port, done) => {
      const r = { origin: String(self.origin), internals: typeof window.__TAURI_INTERNALS__, ipc: typeof window.ipc };
      try {
        r.parent = String(parent.document.title);
      } catch (e) {
        r.parent = e.name;
      }
      try {
        top.location.href = 'tauri://localhost/?pwned';
        r.top = 'navigated';
      } catch (e) {
        r.top = e.name;
      }
      Promise.allSettled([fetch(`http://127.0.0.1:${port}/app-fetch`), fetch('ipc://localhost/new_session', { method: 'POST', body: '{}' })]).then((s) => {
        r.fetches = s.map((x) => x.status);
        done(r);
      });
    }, port),
  );
  assert.deepEqual(hits, [], 'nothing of the app reached the listener');
  t.diagnostic(`inside the app: ${JSON.stringify(inside)}`);
  assert.deepEqual(inside, { origin: 'null', internals: 'undefined', ipc: 'undefined', parent: 'SecurityError', top: 'SecurityError', fetches: ['rejected', 'rejected'] });

  // Its button asks the person first: declined, the tool is not called
  // and the app is told so (the example then shows "[ERROR]").
  await pressGetTime(card);
  await answer(APP_CALL, 'Escape');
  await eventually(browser, 'the app is told the call was refused', async () => (await appText(card)) === '[ERROR]', 30_000);
  // Allowed: the server is called again and the app shows its new time.
  await pressGetTime(card);
  await answer(APP_CALL, 'alt+a');
  const second = await shownTime(card, first);
  assert.ok(second > first, `a later time: ${second} after ${first}`);
  await captureWindow(browser, 'mcp-apps.png');

  // The files after this one share the app's data: the profile and the
  // servers as they were (mcp.e2e.mjs adds its own server to Chat).
  await click('[data-testid="open-profiles"]');
  await click('[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
  await click('[data-testid="mcp-choice"][data-server="basic"]');
  await click('[data-testid="profile-save"]');
  await eventually(browser, 'the profile is saved without the server', async () => {
    for (const el of await browser.$$('[data-testid="toast-text"]')) if ((await el.getText()).includes('Saved profile Chat')) return true;
    return false;
  });
  await click('[data-testid="panel-close"]');
  await click('[data-testid="open-tools"]');
  await browser.$('[data-testid="mcp-config"]').setValue(JSON.stringify({ mcpServers: {} }));
  await click('[data-testid="mcp-save"]');
  await eventually(browser, 'the server is gone', async () => !(await browser.$('[data-testid="mcp-server"]').isExisting()), 30_000);
  await click('[data-testid="panel-close"]');
});
