// Artifacts in the real app (WebKitGTK; docs/security.md, "Artifacts"):
// the simulator answers with a Mermaid diagram and a hostile SVG
// (tests/e2e/sim-script.json, "ARTIFACT-E2E"). The diagram is drawn by
// mermaid in the sandboxed renderer frame, served by the app's
// hearth-artifact: scheme with its own CSP, and shown as an <img>; the SVG's
// scripts, handlers, links and loads do nothing. Inside the renderer frame
// the test checks what a script there could reach: not the app's page, not
// Tauri's IPC (WebKitGTK does expose the native message handler to every
// frame; a message without the per-launch invoke key must change nothing),
// not the network. Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { captureWindow, clickStill, eventually, setSettingsBox, started, startApp, typeInto } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

// The hostile SVG aims every load at this address (a loopback address no
// other program binds): whatever reaches it is counted.
const HIT_HOST = '127.77.7.7';
const HIT_PORT = 7777;
const hits = [];
let hitServer;

before(async () => {
  hitServer = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(204).end();
  });
  await new Promise((resolve, reject) => {
    hitServer.once('error', reject);
    hitServer.listen(HIT_PORT, HIT_HOST, resolve);
  });
});

/** The session this file made, deleted at its end: the files after it share the database, and start where a fresh one would. */
let made = null;

after(async () => {
  if (browser && made) {
    await browser
      .executeAsync((id, done) => {
        window.__TAURI_INTERNALS__.invoke('delete_session', { sessionId: id }).then(() => done(), (e) => done(String(e)));
      }, made)
      .catch(() => {});
  }
  await browser?.deleteSession();
  await new Promise((resolve) => hitServer?.close(resolve));
});

/** The text of each <text> element of an SVG (mermaid writes a label's words as separate tspans). */
function texts(svg) {
  return [...svg.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)].map((m) => m[1].replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').trim());
}

/** Turns HTML previews on or off in Settings. */
async function setPreviews(on) {
  await browser.$('[data-testid="open-settings"]').click();
  await setSettingsBox(browser, 'html-preview-pref', on);
  await browser.$('[data-testid="panel-close"]').click();
  await eventually(browser, 'the settings are closed', async () => !(await browser.$('[data-testid="panel-settings"]').isExisting()));
}

/** The sessions in the store, asked through the page's own (keyed) IPC. */
function sessionCount() {
  return browser.executeAsync((done) => {
    window.__TAURI_INTERNALS__
      .invoke('list_sessions')
      .then((list) => done(list.length))
      .catch((e) => done(`error: ${e}`));
  });
}

test('a mermaid diagram is drawn in the real webview; a hostile SVG and a script in the renderer frame reach nothing', async (t) => {
  browser = await startApp();
  await started(browser);
  // What an escaped payload would change in the app's page.
  await browser.execute(() => {
    window.__seen = { csp: [], messages: [] };
    document.addEventListener('securitypolicyviolation', (e) => window.__seen.csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.addEventListener('message', (e) => {
      if (typeof e.data === 'string' && e.data.includes('pwned')) window.__seen.messages.push(e.data);
    });
    window.__start = { title: document.title, href: location.href };
  });
  await typeInto(browser, '[data-testid="composer-input"]', 'ARTIFACT-E2E: draw the run and the badge');
  await browser.$('[data-testid="send-button"]').click();
  await eventually(browser, 'the answer completes', async () => {
    const done = browser.$('[data-testid="message-assistant"][data-status="done"]');
    return (await done.isExisting()) && (await done.getText()).includes('All three are above.');
  }, 60_000);
  made = await eventually(browser, 'the session is listed', () =>
    browser.execute(() => document.querySelector('[data-testid="session-item"].current')?.getAttribute('data-session-id') ?? null),
  );

  // Both pictures decode: the diagram as mermaid drew it, the SVG as written.
  const pictures = await eventually(
    browser,
    'the diagram and the picture are shown',
    () =>
      browser.execute(() => {
        const imgs = [...document.querySelectorAll('[data-testid="message-assistant"] [data-testid="artifact-image"]')];
        if (imgs.length < 2 || !imgs.every((i) => i.complete && i.naturalWidth > 0)) return null;
        return imgs.map((i) => ({ alt: i.alt, width: i.naturalWidth, height: i.naturalHeight, src: i.getAttribute('src'), shown: i.getBoundingClientRect().width > 0 }));
      }),
    90_000,
  );
  const [diagram, badge] = pictures;
  assert.equal(diagram.alt, 'Flowchart (Mermaid)');
  assert.ok(diagram.shown && diagram.width > 100 && diagram.height > 50, JSON.stringify({ ...diagram, src: undefined }));
  const svg = decodeURIComponent(diagram.src.slice(diagram.src.indexOf(',') + 1));
  assert.match(svg, /^<svg[\s>]/);
  const labels = texts(svg);
  for (const label of ['Question', 'Model', 'Sandboxed tool', 'Answer', 'tool call']) assert.ok(labels.includes(label), `${label} in ${JSON.stringify(labels)}`);
  assert.equal(badge.alt, 'SVG picture');
  assert.deepEqual([badge.width, badge.height, badge.shown], [240, 120, true]);
  // The code blocks behind the pictures are hidden, and there; the page's
  // shows, with nothing to preview it while previews are off.
  assert.deepEqual(
    await browser.execute(() => [...document.querySelectorAll('[data-testid="message-assistant"] pre.code')].map((p) => p.hidden)),
    [true, true, false],
  );
  assert.equal(await browser.$('[data-testid="artifact-preview"]').isExisting(), false);

  // Clicking the picture where its links are follows none of them.
  const imgs = await browser.$$('[data-testid="message-assistant"] [data-testid="artifact-image"]');
  await imgs[1].click();
  await imgs[1].click();

  // Inside the renderer frame: what a script there could reach.
  const before = await sessionCount();
  assert.equal(typeof before, 'number', String(before));
  const frame = await browser.$('[data-testid="artifact-renderer"]');
  assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
  assert.match(await frame.getAttribute('src'), /^hearth-artifact:\/\/localhost\/artifact\/render\.html$/);
  await browser.switchFrame(frame);
  const inside = await browser.executeAsync((done) => {
    const r = { origin: String(self.origin), href: location.href, internals: typeof window.__TAURI_INTERNALS__, ipc: typeof window.ipc };
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
    // WebKitGTK gives every frame the native IPC handler: a message in
    // Tauri's form, without the invoke key, must be dropped.
    r.handler = typeof window.webkit?.messageHandlers?.ipc;
    const forged = { cmd: 'new_session', callback: 1, error: 2, payload: {}, options: null, __TAURI_INVOKE_KEY__: 'guessed' };
    try {
      window.webkit.messageHandlers.ipc.postMessage(JSON.stringify(forged));
      r.posted = 'sent';
    } catch (e) {
      r.posted = e.name;
    }
    const headers = { 'Content-Type': 'application/json', 'Tauri-Callback': '1', 'Tauri-Error': '2', 'Tauri-Invoke-Key': 'guessed' };
    Promise.allSettled([
      fetch('ipc://localhost/new_session', { method: 'POST', body: '{}', headers }),
      fetch('http://127.77.7.7:7777/frame-fetch'),
    ]).then((settled) => {
      r.fetches = settled.map((s) => s.status);
      done(r);
    });
  });
  await browser.switchFrame(null);
  t.diagnostic(`inside the renderer frame: ${JSON.stringify(inside)}`);
  assert.deepEqual(
    { ...inside, handler: undefined, posted: undefined },
    {
      origin: 'null',
      href: 'hearth-artifact://localhost/artifact/render.html',
      internals: 'undefined',
      ipc: 'undefined',
      parent: 'SecurityError',
      top: 'SecurityError',
      fetches: ['rejected', 'rejected'],
      handler: undefined,
      posted: undefined,
    },
  );
  // The forged message (if the handler was there to take it) created no
  // session: the page's own call, after it, sees as many as before.
  assert.equal(await sessionCount(), before, `forged IPC from the frame (handler ${inside.handler}, ${inside.posted}) changed the store`);

  // The HTML preview, once Settings allows it: the page shows in a frame
  // with no scripts, inside the preview frame (scripts for its own code).
  await setPreviews(true);
  try {
    // The button appears only once previews are allowed, as Settings
    // closes: a click aimed while the page still moves can land beside it
    // (a loaded CI run's did), so it is clicked still and checked pressed.
    await eventually(browser, 'the preview is open', async () => {
      const pressed = await browser.$('[data-testid="artifact-preview"]').getAttribute('aria-pressed');
      if (pressed !== 'true') await clickStill(browser, '[data-testid="artifact-preview"]');
      return pressed === 'true';
    }, 30_000);
    const preview = await browser.$('[data-testid="artifact-preview-frame"]');
    await preview.waitForExist({ timeout: 30_000 });
    assert.equal(await preview.getAttribute('sandbox'), 'allow-scripts');
    assert.match(await preview.getAttribute('src'), /^hearth-artifact:\/\/localhost\/artifact\/preview\.html$/);
    await browser.switchFrame(preview);
    const page = await browser.$('iframe');
    await page.waitForExist({ timeout: 30_000 });
    assert.equal(await page.getAttribute('sandbox'), '');
    await browser.switchFrame(page);
    // Found without a script of the page's (the frame runs none).
    const heading = await browser.$('#t');
    await heading.waitForExist({ timeout: 30_000 });
    assert.equal(await heading.getText(), 'Hello from the page');
    await browser.$('#l').click();
    await browser.switchFrame(null);
    await captureWindow(browser, 'artifacts-preview.png');
  } finally {
    await browser.switchFrame(null);
    // The files after this one share the preferences: as they were.
    await setPreviews(false);
  }

  // Nothing escaped into the app, and nothing reached the network.
  const seen = await browser.execute(() => ({
    csp: window.__seen.csp,
    messages: window.__seen.messages,
    title: document.title === window.__start.title && !document.title.includes('pwned'),
    href: location.href === window.__start.href,
  }));
  assert.deepEqual(seen, { csp: [], messages: [], title: true, href: true });
  assert.equal((await browser.getWindowHandles()).length, 1, 'no window was opened');
  assert.deepEqual(hits, []);
  await captureWindow(browser, 'artifacts.png');
});
