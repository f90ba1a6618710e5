// Artifacts in answers (lib/artifacts.ts, components/Artifact.svelte;
// docs/security.md, "Artifacts"): a ```mermaid block drawn as a diagram in
// the sandboxed renderer frame and shown as an <img>, an SVG shown as an
// <img>, an HTML page previewed (only once Settings allows) in a frame
// whose page runs no script; Show source, Copy, Save as SVG / PNG / HTML.
// Hostile payloads reach for the app (its title, a message to it, its
// location, a new window) and for the network (a local server this file
// runs counts every request): nothing may arrive, and the app's own page
// raises no CSP violation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, send, setup, stepAll, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** A server that counts what reaches it: every payload below aims at it. */
const hits = [];
let hit = '';
let hitServer;
before(async () => {
  hitServer = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('hit');
  });
  await new Promise((resolve) => hitServer.listen(0, '127.0.0.1', resolve));
  hit = `http://127.0.0.1:${hitServer.address().port}`;
});
after(() => new Promise((resolve) => hitServer.close(resolve)));

/** Streams `text` as the next answer and waits for it to end. */
async function answer(page, text) {
  await page.evaluate((t) => {
    window.__hearthMock.config.streamText = t;
    window.__hearthMock.config.tickMs = 2;
    window.__hearthMock.config.streamChunk = Math.max(1, Math.ceil(t.length / 400));
  }, text);
  await send(page, 'stream text');
  await waitIdle(page);
  return page.getByTestId('message-assistant').last();
}

/** The SVG an artifact's <img> shows (its data: URL decoded). */
async function shownSvg(img) {
  const src = await img.getAttribute('src');
  assert.match(src, /^data:image\/svg\+xml;charset=utf-8,/);
  return decodeURIComponent(src.slice(src.indexOf(',') + 1));
}

/** The text of each <text> element of an SVG (mermaid writes a label's words as separate tspans). */
function texts(svg) {
  const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
  return [...svg.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)].map((m) => m[1].replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, e) => entities[e]).trim());
}

/** Turns HTML previews on in Settings. */
async function allowPreviews(page) {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('html-preview-pref').check();
  await page.waitForFunction(() => window.__hearthMock.prefs.html_preview === true);
  await page.keyboard.press('Escape');
}

/** Waits until the <img> has decoded its picture; its natural size. */
async function decoded(img) {
  await img.waitFor();
  await img.evaluate((el) => el.decode());
  return img.evaluate((el) => ({ width: el.naturalWidth, height: el.naturalHeight, complete: el.complete }));
}

/**
 * Watches the app's page for what a payload that escaped would do: a
 * message posted to it, a changed title or location, a global set.
 */
async function watchForEscapes(page) {
  await page.evaluate(() => {
    window.__escapes = [];
    window.addEventListener('message', (e) => {
      if (typeof e.data === 'string' && e.data.includes('pwned')) window.__escapes.push(`message ${e.data}`);
    });
    window.__title = document.title;
    window.__href = location.href;
  });
}

async function assertNothingEscaped(page) {
  const seen = await page.evaluate(() => ({
    escapes: window.__escapes,
    title: document.title === window.__title && !document.title.includes('pwned'),
    href: location.href === window.__href,
    pwned: typeof window.__pwned,
  }));
  assert.deepEqual(seen, { escapes: [], title: true, href: true, pwned: 'undefined' });
  assert.equal(page.context().pages().length, 1, 'no window was opened');
  assert.deepEqual(await calls(page, 'open_link'), [], 'nothing reached the opener');
}

const PAGE = '<!doctype html>\n<html><head><style>h1 { color: rgb(200, 0, 0); }</style></head>\n<body><h1 id="t">Hello preview</h1><p>A page.</p></body></html>';
const FLOWCHART = ['flowchart TD', '  A[Start here] --> B{Is it ok?}', '  B -->|yes| C[Ship it]', '  B -->|no| D[Fix it]'].join('\n');
const SEQUENCE = ['sequenceDiagram', '  participant Alice', '  participant Bob', '  Alice->>Bob: Hello Bob', '  Bob-->>Alice: Hi Alice'].join('\n');

test('a mermaid flowchart and a sequence diagram are drawn as pictures with their labels, the code hidden', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const a = await answer(page, `Here:\n\n\`\`\`mermaid\n${FLOWCHART}\n\`\`\`\n\nAnd:\n\n\`\`\`mermaid\n${SEQUENCE}\n\`\`\`\n\nDone.`);
    const imgs = a.getByTestId('artifact-image');
    await imgs.nth(1).waitFor({ timeout: 20_000 });
    assert.equal(await imgs.count(), 2);
    const [flow, seq] = [imgs.nth(0), imgs.nth(1)];
    for (const img of [flow, seq]) {
      const size = await decoded(img);
      assert.ok(size.complete && size.width > 50 && size.height > 50, JSON.stringify(size));
      assert.ok(await img.isVisible());
    }
    assert.equal(await flow.getAttribute('alt'), 'Flowchart (Mermaid)');
    assert.equal(await seq.getAttribute('alt'), 'Sequence diagram (Mermaid)');
    const flowSvg = await shownSvg(flow);
    assert.match(flowSvg, /^<svg[\s>]/);
    const flowTexts = texts(flowSvg);
    for (const label of ['Start here', 'Is it ok?', 'Ship it', 'Fix it', 'yes', 'no']) assert.ok(flowTexts.includes(label), `flowchart label ${label} in ${JSON.stringify(flowTexts)}`);
    // Labels are SVG text, not HTML in a foreignObject (an <img> and a canvas draw them alike).
    assert.doesNotMatch(flowSvg, /foreignObject/);
    const seqSvg = await shownSvg(seq);
    const seqTexts = texts(seqSvg);
    for (const label of ['Alice', 'Bob', 'Hello Bob', 'Hi Alice']) assert.ok(seqTexts.includes(label), `sequence label ${label} in ${JSON.stringify(seqTexts)}`);
    // The code blocks are there, hidden behind their pictures.
    const pres = a.locator('pre.code');
    assert.equal(await pres.count(), 2);
    for (const pre of await pres.all()) assert.equal(await pre.isVisible(), false);
    assert.ok((await a.textContent()).includes('Done.'));
    // Drawn in the one hidden renderer frame, sandboxed to scripts only.
    const frames = page.getByTestId('artifact-renderer');
    assert.equal(await frames.count(), 1);
    assert.equal(await frames.getAttribute('sandbox'), 'allow-scripts');
  }));

test('show source, copy and save: the code, the source on the clipboard, SVG and PNG through the Save dialog', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.evaluate(() => {
      window.__copied = [];
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t) => void window.__copied.push(t) } });
    });
    const a = await answer(page, `\`\`\`mermaid\n${FLOWCHART}\n\`\`\``);
    const img = a.getByTestId('artifact-image');
    const size = await decoded(img);
    const toggle = a.getByTestId('artifact-toggle');
    assert.equal(await toggle.textContent(), 'Show source');
    await toggle.click();
    await a.locator('pre.code').waitFor({ state: 'visible' });
    assert.equal(await img.count(), 0);
    assert.equal(await a.locator('pre.code code').textContent(), FLOWCHART);
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await toggle.textContent(), 'Show diagram');
    await toggle.click();
    await img.waitFor();
    assert.equal(await a.locator('pre.code').isVisible(), false);

    await a.getByTestId('artifact-copy').click();
    await page.waitForFunction(() => window.__copied.length === 1);
    assert.deepEqual(await page.evaluate(() => window.__copied), [FLOWCHART]);
    await a.getByTestId('artifact-copy').getByText('Copied').waitFor();

    await a.getByTestId('artifact-save-svg').click();
    await page.getByText('Saved to /home/user/Downloads/flowchart.svg').waitFor();
    await a.getByTestId('artifact-save-png').click();
    await page.getByText('Saved to /home/user/Downloads/flowchart.png').waitFor();
    const saved = await page.evaluate(() => Object.fromEntries(window.__hearthMock.dialogs.saved));
    const svg = saved['/home/user/Downloads/flowchart.svg'];
    assert.equal(svg, await shownSvg(img));
    assert.ok(texts(svg).includes('Ship it'));
    // The PNG: drawn through a canvas at twice the picture's size.
    const png = Buffer.from(saved['/home/user/Downloads/flowchart.png'], 'base64');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), size.width * 2);
    assert.equal(png.readUInt32BE(20), size.height * 2);
    const asked = (await calls(page, 'save_artifact')).map((c) => [c.args.name, c.args.format]);
    assert.deepEqual(asked, [['flowchart', 'svg'], ['flowchart', 'png']]);
    // A cancelled dialog saves nothing and says nothing.
    await page.evaluate(() => window.__hearthMock.dialogs.answers.push(null));
    await a.getByTestId('artifact-save-svg').click();
    await page.waitForFunction(() => window.__hearthMock.dialogs.asked.length === 3);
    assert.equal(await page.evaluate(() => window.__hearthMock.dialogs.saved.size), 2);
  }));

test('an SVG block, and an xml block whose root is <svg>, are shown as pictures; other xml stays code; a broken SVG shows its source', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    // No namespace (as in HTML), a viewBox and no size: shown all the same.
    const svg = '<svg viewBox="0 0 120 60"><rect width="120" height="60" fill="#2a7"/><text x="10" y="35">Hello SVG</text></svg>';
    const xml = '<?xml version="1.0"?>\n<!-- a picture -->\n<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"><circle cx="20" cy="20" r="15"/></svg>';
    const a = await answer(page, `\`\`\`svg\n${svg}\n\`\`\`\n\n\`\`\`xml\n${xml}\n\`\`\`\n\n\`\`\`xml\n<note><to>Tove</to></note>\n\`\`\`\n\n\`\`\`svg\n<svg><g><rect></svg>\n\`\`\``);
    const imgs = a.getByTestId('artifact-image');
    await imgs.nth(1).waitFor();
    assert.deepEqual(await decoded(imgs.nth(0)), { width: 120, height: 60, complete: true });
    assert.deepEqual(await decoded(imgs.nth(1)), { width: 80, height: 40, complete: true });
    assert.ok((await shownSvg(imgs.nth(0))).includes('Hello SVG'));
    assert.equal(await imgs.nth(0).getAttribute('alt'), 'SVG picture');
    // Three artifacts: the plain XML is a code block as before.
    assert.equal(await a.getByTestId('artifact').count(), 3);
    assert.ok(await a.locator('pre.code', { hasText: '<note>' }).isVisible());
    // The broken one says so, and its source shows.
    await a.getByTestId('artifact-error').waitFor();
    assert.match(await a.getByTestId('artifact-error').textContent(), /could not be drawn/);
    assert.ok(await a.locator('pre.code', { hasText: '<svg><g><rect></svg>' }).isVisible());
    // Saved as the model wrote it.
    await a.getByTestId('artifact-save-svg').first().click();
    await page.getByText('Saved to /home/user/Downloads/picture.svg').waitFor();
    assert.equal(await page.evaluate(() => window.__hearthMock.dialogs.saved.get('/home/user/Downloads/picture.svg')), svg);
  }));

test('axe finds nothing serious in an answer with a diagram, a picture, a failed diagram and an open HTML preview', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await allowPreviews(page);
    const a = await answer(page, `\`\`\`mermaid\n${FLOWCHART}\n\`\`\`\n\n\`\`\`svg\n<svg viewBox="0 0 10 10"><rect width="10" height="10"/></svg>\n\`\`\`\n\n\`\`\`mermaid\nflowchart TD\n  A -->\n\`\`\`\n\n\`\`\`html\n${PAGE}\n\`\`\``);
    await a.getByTestId('artifact-image').nth(1).waitFor();
    await a.getByTestId('artifact-error').waitFor();
    await a.getByTestId('artifact-preview').click();
    await page.frameLocator('[data-testid=artifact-preview-frame]').frameLocator('iframe').getByText('Hello preview').waitFor();
    await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const serious = r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(serious, []);
  }));

test('HTML previews are off by default; turned on in Settings, a page shows, styled, and its source a click away', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const a = await answer(page, `\`\`\`html\n${PAGE}\n\`\`\``);
    // Off: a code block as before, nothing to preview.
    await a.locator('pre.code').waitFor();
    assert.equal(await a.getByTestId('artifact-preview').count(), 0);
    assert.equal(await page.locator('iframe').count(), 0);
    assert.equal(await page.evaluate(() => window.__hearthMock.prefs.html_preview), false);

    await page.getByTestId('open-settings').click();
    assert.equal(await page.getByTestId('html-preview-pref').isChecked(), false);
    await page.keyboard.press('Escape');
    await allowPreviews(page);

    const open = a.getByTestId('artifact-preview');
    assert.equal(await open.textContent(), 'Open preview');
    await open.click();
    const frame = a.getByTestId('artifact-preview-frame');
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    const inner = page.frameLocator('[data-testid=artifact-preview-frame]').frameLocator('iframe');
    await inner.getByText('Hello preview').waitFor();
    // The page's own frame runs nothing: sandboxed with no allowance at all.
    assert.equal(await page.frameLocator('[data-testid=artifact-preview-frame]').locator('iframe').getAttribute('sandbox'), '');
    assert.equal(await inner.locator('#t').evaluate((h) => getComputedStyle(h).color), 'rgb(200, 0, 0)');
    assert.equal(await a.locator('pre.code').isVisible(), false);
    await open.click();
    await a.locator('pre.code').waitFor({ state: 'visible' });
    assert.equal(await frame.count(), 0);
    await a.getByTestId('artifact-save-html').click();
    await page.getByText('Saved to /home/user/Downloads/page.html').waitFor();
    assert.equal(await page.evaluate(() => window.__hearthMock.dialogs.saved.get('/home/user/Downloads/page.html')), PAGE);
  }));

test('hostile HTML in a preview runs nothing, loads nothing, navigates nothing', () =>
  withApp(
    '',
    async ({ page }) => {
      await page.getByTestId('new-session').click();
      await watchForEscapes(page);
      const before = hits.length;
      const html = [
        '<!doctype html><html><head>',
        `<meta http-equiv="refresh" content="0;url=${hit}/refresh">`,
        `<link rel="stylesheet" href="${hit}/style.css"><link rel="prefetch" href="${hit}/prefetch">`,
        `<style>@import url(${hit}/import.css); body { background: url(${hit}/bg.png); }</style>`,
        '</head>',
        `<body onload="top.document.title='pwned'; parent.parent.postMessage('pwned onload', '*')">`,
        '<h1>Preview under attack</h1>',
        `<script>top.__pwned = 1; parent.parent.postMessage('pwned script', '*'); fetch('${hit}/fetch'); var x = new XMLHttpRequest(); x.open('GET', '${hit}/xhr'); x.send(); window.open('${hit}/open'); top.location = '${hit}/top';</script>`,
        `<img src="${hit}/img.png" onerror="parent.parent.postMessage('pwned onerror', '*')">`,
        `<iframe src="${hit}/frame"></iframe><object data="${hit}/object"></object><video src="${hit}/video.mp4" autoplay></video>`,
        `<form action="${hit}/form" method="post"><button id="f">Send</button></form>`,
        `<a id="top" href="${hit}/top-link" target="_top">top</a> <a id="blank" href="${hit}/blank-link" target="_blank">blank</a> <a id="js" href="javascript:top.__pwned=1">js</a> <a id="self" href="${hit}/self-link">self</a>`,
        '</body></html>',
      ].join('\n');
      await allowPreviews(page);
      const a = await answer(page, `\`\`\`html\n${html}\n\`\`\``);
      await a.getByTestId('artifact-preview').click();
      const inner = page.frameLocator('[data-testid=artifact-preview-frame]').frameLocator('iframe');
      await inner.getByText('Preview under attack').waitFor();
      for (const id of ['#f', '#top', '#blank', '#js', '#self']) await inner.locator(id).click({ timeout: 5_000 }).catch(() => {});
      // Give any request a chance to land: a round trip to the counting server after the clicks.
      await fetch(`${hit}/sync`);
      assert.deepEqual(hits.slice(before).filter((u) => u !== '/sync'), []);
      await assertNothingEscaped(page);
    },
    { frames: false },
  ));

test('hostile diagrams and SVG pictures run nothing, load nothing, and raise no CSP violation in the app', () =>
  withApp(
    '',
    async ({ page }) => {
      await page.getByTestId('new-session').click();
      await watchForEscapes(page);
      const before = hits.length;
      const mermaidSrc = [
        `%%{init: {"securityLevel": "loose", "htmlLabels": true, "themeCSS": "@import url(${hit}/theme.css);", "themeVariables": {"fontFamily": "x; } @import url(${hit}/var.css); .a {"}}}%%`,
        'flowchart TD',
        `  A["<img src=${hit}/label.png onerror=parent.postMessage('pwned',' *')>"] --> B["<script>top.location='${hit}/top'</script>"]`,
        `  B --> C["<a href='javascript:top.__pwned=1'>link</a>"]`,
        `  click A href "javascript:top.__pwned=1"`,
        `  click C href "${hit}/click" _top`,
      ].join('\n');
      const svg = [
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="240" height="120" onload="top.__pwned = 1; fetch('${hit}/onload')">`,
        `<script>top.__pwned = 1; parent.postMessage('pwned svg', '*'); fetch('${hit}/script'); new Image().src = '${hit}/script-img'; var x = new XMLHttpRequest(); x.open('GET', '${hit}/xhr'); x.send(); window.open('${hit}/open'); top.location = '${hit}/top';</script>`,
        `<style>@import url(${hit}/import.css); rect { stroke: url(${hit}/stroke.svg#s); }</style>`,
        `<image href="${hit}/image.png" width="10" height="10" onerror="top.__pwned = 1"/><image xlink:href="${hit}/xlink.png" width="10" height="10"/>`,
        `<a href="javascript:top.__pwned = 1"><rect width="240" height="120" fill="#3b7"/></a>`,
        `<a xlink:href="${hit}/link" target="_top"><text x="10" y="60">click me</text></a>`,
        `<foreignObject width="240" height="120"><div xmlns="http://www.w3.org/1999/xhtml"><img src="${hit}/fo.png" onerror="top.__pwned = 1"/><meta http-equiv="refresh" content="0;url=${hit}/refresh"/><iframe src="${hit}/iframe"></iframe></div></foreignObject>`,
        '</svg>',
      ].join('\n');
      const a = await answer(page, `\`\`\`mermaid\n${mermaidSrc}\n\`\`\`\n\n\`\`\`svg\n${svg}\n\`\`\``);
      const imgs = a.getByTestId('artifact-image');
      await imgs.nth(1).waitFor({ timeout: 20_000 });
      for (const img of await imgs.all()) await decoded(img);
      // What mermaid drew is sanitized: no script, handler or javascript: link, and plain-text labels.
      const drawn = await shownSvg(imgs.nth(0));
      assert.doesNotMatch(drawn, /<script|<img|<foreignObject|javascript:|@import|url\(http/i);
      assert.doesNotMatch(drawn, /<[a-z][^>]*\son[a-z]+\s*=/i, 'no element has an event handler');
      // Clicking the pictures (where the links are) follows nothing.
      for (const img of await imgs.all()) {
        await img.click();
        await img.click();
      }
      await fetch(`${hit}/sync`);
      assert.deepEqual(hits.slice(before).filter((u) => u !== '/sync'), []);
      await assertNothingEscaped(page);
      // Saving the picture gives back the model's text unchanged (it is the user's to open).
      await a.getByTestId('artifact-save-svg').nth(1).click();
      await page.getByText('Saved to /home/user/Downloads/picture.svg').waitFor();
    },
    { frames: false },
  ));

test('a huge diagram, a deeply nested one and a chain past the edge limit end as "too large to draw"; a syntax error shows with its source; the page stays responsive', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const huge = ['flowchart TD', ...Array.from({ length: 5000 }, (_, i) => `  N${i}[Node ${i}] --> N${i + 1}`)].join('\n');
    let nested = 'flowchart TD\n';
    for (let i = 0; i < 40; i++) nested += `subgraph S${i}\n`;
    nested += 'A --> B\n' + 'end\n'.repeat(40);
    // Short names on one line: under the size bounds, past mermaid's edge limit.
    const names = Array.from({ length: 3000 }, (_, i) => i.toString(36).padStart(3, 'a'));
    const chain = `flowchart LR\n  ${names.join('-->')}`;
    const broken = 'flowchart TD\n  A --> B -->';
    const t0 = Date.now();
    const a = await answer(page, [huge, nested, chain, broken].map((s) => `\`\`\`mermaid\n${s}\n\`\`\``).join('\n\nNext:\n\n'));
    const large = a.getByTestId('artifact-too-large');
    await large.nth(2).waitFor({ timeout: 20_000 });
    const said = await large.allTextContents();
    assert.match(said[0], /^Too large to draw: it is [\d,]+ characters long/);
    assert.match(said[1], /nested 40 deep/);
    assert.match(said[2], /edge limit|edges/i);
    const error = a.getByTestId('artifact-error');
    await error.waitFor({ timeout: 20_000 });
    assert.match(await error.textContent(), /^Mermaid could not draw this diagram: Parse error on line \d+:/);
    // Every source shows, none is drawn.
    assert.equal(await a.getByTestId('artifact-image').count(), 0);
    for (const pre of await a.locator('pre.code').all()) assert.ok(await pre.isVisible());
    assert.ok((await a.locator('pre.code').last().textContent()).includes('A --> B -->'));
    assert.ok(Date.now() - t0 < 60_000);
    // The page answers: the next message streams and renders.
    await send(page, 'hello');
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().locator('pre.code code .hljs-keyword').first().waitFor();
  }));

/** With the mock stepped: sends the next held event; its text (or '' for another event), null when none is left. */
function stepText(page) {
  return page.evaluate(() => {
    const run = [...window.__hearthMock.runs.values()].find((r) => !r.done && r.held.length > 0);
    if (!run) return null;
    const ev = run.held[0];
    window.__hearthMock.step();
    return ev.type === 'text_delta' ? ev.delta : '';
  });
}

test('while an answer streams, an unfinished mermaid block shows as code; it is drawn once its fence closes', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const text = `Look:\n\n\`\`\`mermaid\n${FLOWCHART}\n\`\`\`\n\nThat is all.`;
    await page.evaluate((t) => {
      window.__hearthMock.config.streamText = t;
      window.__hearthMock.config.stepped = true;
    }, text);
    await send(page, 'stream text');
    const live = page.locator('[data-testid="message-assistant"][data-live="true"] [data-testid="markdown"]');
    const open = text.indexOf('```mermaid\n') + '```mermaid\n'.length;
    const close = text.indexOf('\n```\n', open) + '\n```\n'.length;
    // One character at a time: while the fence is open, the block is code
    // showing what has come, and the renderer is never asked.
    let streamed = '';
    while (streamed.length < close) {
      const delta = await stepText(page);
      assert.notEqual(delta, null, 'the run ended before the fence closed');
      streamed += delta;
      if (streamed.length <= open || streamed.length >= close) continue;
      // The code so far, less a last line that may become the closing fence.
      const lines = streamed.slice(open).split('\n');
      if (/^`*$/.test(lines.at(-1))) lines.pop();
      const code = lines.join('\n').trimEnd();
      if (code === '') continue;
      await page.waitForFunction(
        ([sel, want]) => document.querySelector(sel)?.querySelector('pre.code code')?.textContent?.trimEnd() === want,
        ['[data-testid="message-assistant"][data-live="true"] [data-testid="markdown"]', code],
        { timeout: 5_000 },
      );
      assert.equal(await live.getByTestId('artifact').count(), 0, `an open fence is code (after ${JSON.stringify(streamed.slice(-12))})`);
      assert.equal(await page.getByTestId('artifact-renderer').count(), 0, 'nothing went to the renderer');
    }
    // The next paragraph begins (what the core holds back of the last line
    // is out): the fence is closed on screen, and while the answer still
    // streams the diagram is drawn.
    while (!streamed.includes('That')) {
      const delta = await stepText(page);
      assert.notEqual(delta, null, 'the run ended early');
      streamed += delta;
    }
    const img = live.getByTestId('artifact-image');
    await decoded(img);
    assert.ok(texts(await shownSvg(img)).includes('Ship it'));
    await stepAll(page);
    await waitIdle(page);
    const stored = page.getByTestId('message-assistant').last().getByTestId('artifact-image');
    await decoded(stored);
    assert.ok((await page.getByTestId('message-assistant').last().textContent()).includes('That is all.'));
  }));
