// Shared by the Chromium UI tests: serves the mock build (ui/dist-mock,
// built by `npm run test:ui`) with the app's production CSP as a response
// header, starts Debian's Chromium through playwright-core (which must
// never download a browser), and opens the app with guards that fail a
// test on any CSP violation, console error or uncaught page error.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui/dist-mock');

/**
 * tauri.conf.json's production CSP. Its frame-src names the artifact
 * frames' scheme (hearth-artifact:); the mock serves those frames from its
 * own origin, so here it is 'self'.
 */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  'connect-src ipc: http://ipc.localhost',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'self'",
].join('; ');

/**
 * The artifact frames' CSP (src-tauri/artifacts.rs), with the server's
 * origin where the app names its hearth-artifact: scheme (a sandboxed
 * frame's opaque origin is not 'self' to WebKitGTK).
 */
export function artifactCsp(origin) {
  return [
    "default-src 'none'",
    `script-src ${origin}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
  ].join('; ');
}

/**
 * The MCP app frame's CSP (src-tauri/artifacts.rs, artifact/mcp-app.html
 * only), with the server's origin where the app names hearth-artifact:.
 * An MCP app is one HTML file with inline scripts; it runs in an opaque
 * origin with no network, no frames and no forms, so its inline scripts
 * reach nothing.
 */
export function mcpAppCsp(origin) {
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${origin}`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    'media-src data: blob:',
    'font-src data:',
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2' };

/**
 * Serves the mock build on a free loopback port. `seen` lists the path of
 * every request that reached it (a hostile frame's request must not).
 */
export async function startServer() {
  if (!existsSync(path.join(root, 'mock.html'))) {
    throw new Error('ui/dist-mock is missing: run `npm run test:ui` (it builds the mock first)');
  }
  const seen = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push(url.pathname);
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const rel = url.pathname === '/' ? 'mock.html' : url.pathname.slice(1);
    const file = path.join(root, path.normalize(rel));
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const frame = rel.startsWith('artifact/');
    const own = `http://${req.headers.host}`;
    const mcpApp = rel === 'artifact/mcp-app.html' || rel === 'artifact/mcp-app.js';
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-security-policy': mcpApp ? mcpAppCsp(own) : frame ? artifactCsp(own) : CSP,
      ...(frame ? { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } : {}),
    });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}/`, seen, close: () => new Promise((r) => server.close(r)) };
}

// Debian's chromium-headless-shell where it is installed (scripts/setup.sh
// installs it): the same Blink as the full browser, without the browser's
// own window machinery, the shell Playwright itself runs headless. The
// suite passes the same with either; the shell takes about 40 % less CPU
// (docs/testing.md), and in CI the suite shares 2 cores with the build, the
// Rust tests and the real model.
const SHELL = '/usr/bin/chromium-headless-shell';
const CHROMIUM = {
  executablePath: process.env.HEARTH_CHROMIUM ?? (existsSync(SHELL) ? SHELL : '/usr/bin/chromium'),
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
};

/**
 * The browser a test file uses. Under tests/ui/run.mjs every file connects
 * to the one Chromium it started ($HEARTH_CHROMIUM_WS), and closing it only
 * disconnects (its contexts go with it); run alone, a file starts its own.
 * Each test still gets a fresh context, so nothing carries over.
 */
export async function launch() {
  const ws = process.env.HEARTH_CHROMIUM_WS;
  return ws ? chromium.connect(ws, { timeout: 30_000 }) : chromium.launch(CHROMIUM);
}

/** One Chromium for a whole run of the suite (tests/ui/run.mjs). */
export async function launchShared() {
  return chromium.launchServer(CHROMIUM);
}

/**
 * Opens the app (query: mock options, e.g. "big=10000") and waits until it
 * has started. `problems()` lists CSP violations, console errors and page
 * errors so far; `requests` every URL the page asked for.
 */
export async function openApp(browser, base, query = '', { viewport = { width: 1200, height: 800 } } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  // What the artifact frames log (a hostile diagram's handler refused by
  // their CSP, say) is kept apart: `problems({ frames: false })` leaves it
  // out. The app's own messages come from its page or its scripts; the
  // frames' from their pages, a previewed page (about:srcdoc), or nowhere
  // Chromium names (a frame's refused navigation). The app page's CSP
  // violations are counted apart, by its own listener, either way.
  const frameProblems = [];
  const fromApp = (url) => url.startsWith(base) && !url.startsWith(`${base}artifact/`);
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    (fromApp(m.location().url ?? '') ? problems : frameProblems).push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${base}${query ? `?${query}` : ''}`);
  await page.locator('[data-testid="app"][data-version="0.1.0"]').waitFor({ timeout: 15_000 });
  // In the bundled font: what a test measures is what the app shows.
  await page.evaluate(() => document.fonts.ready);
  return {
    page,
    requests,
    /** The app page's CSP violations and errors, and (unless `frames: false`) what its artifact frames logged as errors. */
    async problems({ frames = true } = {}) {
      const csp = await page.evaluate(() => window.__csp).catch(() => []);
      return [...csp.map((c) => `csp: ${c}`), ...problems, ...(frames ? frameProblems.map((p) => `artifact frame ${p}`) : [])];
    },
    frameProblems,
    async close() {
      await context.close();
    },
  };
}

/** Fails on CSP violations, console errors, page errors (`frames: false`: the artifact frames' own are allowed). */
export async function assertClean(app, { frames = true } = {}) {
  assert.deepEqual(await app.problems({ frames }), []);
}

/** The mock's record of IPC calls named `cmd`. */
export async function calls(page, cmd) {
  return page.evaluate((c) => window.__hearthMock.calls.filter((x) => x.cmd === c), cmd);
}

/** Sends a message through the composer with Enter. */
export async function send(page, text) {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

/** Waits for the running answer to end (the Send button is back). */
export async function waitIdle(page) {
  await page.getByTestId('send-button').waitFor({ timeout: 10_000 });
}

/** A test file's browser + server + fresh app per test, with the clean-page check. */
export function setup(hooks) {
  const state = { browser: null, server: null };
  hooks.before(async () => {
    state.server = await startServer();
    state.browser = await launch();
  });
  hooks.after(async () => {
    await state.browser?.close();
    await state.server?.close();
  });
  /**
   * Runs `fn(app)` in a fresh page and checks the page stayed clean
   * (`frames: false`: errors the artifact frames log, such as their CSP
   * refusing a hostile diagram's handler, are the test's to judge).
   */
  async function withApp(query, fn, { frames = true } = {}) {
    const app = await openApp(state.browser, state.server.url, query);
    try {
      await fn(app);
      await assertClean(app, { frames });
    } finally {
      await app.close();
    }
  }
  /** The paths that reached the mock's server so far (startServer's `seen`). */
  withApp.seen = () => state.server?.seen ?? [];
  return withApp;
}

/**
 * With the mock in stepped mode: sends the running run's held events one
 * by one until one of `type` is out (fails if the run ends first).
 */
export async function stepUntil(page, type) {
  // Pressing Enter returns before the page has asked for the run.
  await page.waitForFunction(() => [...window.__hearthMock.runs.values()].some((r) => !r.done && r.held.length > 0), null, { timeout: 10_000 });
  for (;;) {
    const sent = await page.evaluate(() => {
      const run = [...window.__hearthMock.runs.values()].find((r) => !r.done && r.held.length > 0);
      if (!run) return null;
      const t = run.held[0].type;
      window.__hearthMock.step();
      return t;
    });
    assert.ok(sent, `the run ended before ${type}`);
    if (sent === type) return;
  }
}

/** With the mock in stepped mode: sends every held event. */
export async function stepAll(page) {
  await page.evaluate(() => {
    while (window.__hearthMock.step());
  });
}
