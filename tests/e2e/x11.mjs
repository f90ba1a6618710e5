// The desktop around the app in the e2e tests: a session bus of a test's
// own (dbus-daemon), and the app's window on run.sh's virtual display
// (xdotool: find it, measure it, move it, and move the pointer, which is
// what gives a window the focus on an X server without a window manager).
import { execFileSync, spawn } from 'node:child_process';
import assert from 'node:assert/strict';

/** Waits for `check()` to return something truthy, polling; fails after `timeout` ms. */
export async function until(what, check, timeout = 60_000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() > end) assert.fail(`${what} (last seen: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `cmd args` on `bus` (when given); its stdout, or '' when it failed. */
export function run(cmd, args, bus) {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      timeout: 15_000,
      env: bus ? { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus } : process.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}

/**
 * Starts a session bus listening at `socket`; its address, and the daemon
 * (for the caller to kill). The user's own desktop bus, or none in CI,
 * plays no part.
 */
export async function startBus(socket) {
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:path=${socket}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise((resolve, reject) => {
    let out = '';
    daemon.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    daemon.once('exit', () => reject(new Error('dbus-daemon exited at start')));
  });
  return { address, daemon };
}

/** The visible top-level window of process `pid`, or null. */
export function windowOf(pid) {
  return run('xdotool', ['search', '--onlyvisible', '--pid', String(pid)]).trim().split('\n')[0] || null;
}

/** `{x, y, width, height}` of window `id` on the screen. */
export function geometry(id) {
  const out = run('xdotool', ['getwindowgeometry', '--shell', id]);
  const v = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=')),
  );
  return { x: Number(v.X), y: Number(v.Y), width: Number(v.WIDTH), height: Number(v.HEIGHT) };
}

/** Whether window `id` is at `want` (`{x, y, width, height}`). */
export function isAt(id, want) {
  const g = geometry(id);
  return g.x === want.x && g.y === want.y && g.width === want.width && g.height === want.height;
}

/**
 * Watches the screen's top-level windows being created, moved, resized and
 * mapped (xev on the root window; with no window manager the app's windows
 * are its children). `of(id)` lists window `id`'s events so far, in order:
 * `{type, x, y, width, height}` (no place or size for a map).
 */
export async function watchWindows() {
  // xev has once exited or printed nothing for a minute under load (a CI
  // run beside another build): a watcher that has not caught up in 20 s is
  // replaced, and one that exits says so at once, with its own words.
  for (let attempt = 1; ; attempt++) {
    const watcher = startXev();
    try {
      await watcher.caughtUp('xev watches the screen', 20_000);
      return watcher;
    } catch (e) {
      watcher.stop();
      if (attempt === 3) throw e;
    }
  }
}

function startXev() {
  const xev = spawn('stdbuf', ['-oL', 'xev', '-root', '-event', 'substructure', '-event', 'property'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  xev.stdout.on('data', (d) => (out += d));
  xev.stderr.on('data', (d) => (err += d));
  // A change of the root's properties made here, once xev has printed it,
  // tells that everything before it was read too.
  let marks = 0;
  const caughtUp = (what, timeout) =>
    until(
      what,
      () => {
        if (xev.exitCode !== null || xev.signalCode !== null) {
          assert.fail(`${what}: xev exited (${xev.exitCode ?? xev.signalCode}): ${err.trim()}`);
        }
        const atom = `_HEARTH_E2E_${marks}`;
        run('xprop', ['-root', '-f', atom, '8s', '-set', atom, 'seen']);
        if (!out.includes(`(${atom})`)) return false;
        marks++;
        return true;
      },
      timeout,
    );
  return {
    /** Waits until xev has printed every event that came before. */
    caughtUp: (what = 'xev has printed what came before', timeout = 60_000) => caughtUp(what, timeout),
    of(id) {
      const hex = `0x${Number(id).toString(16)}`;
      const events = [];
      for (const block of out.split(/\n\s*\n/)) {
        const type = /^\s*(\w+Notify) event/.exec(block)?.[1];
        // The last "window" named is the one the event is about (the first is the root).
        const m = [...block.matchAll(/\bwindow (0x[0-9a-f]+)(?:, \((-?\d+),(-?\d+)\), width (\d+), height (\d+))?/g)].at(-1);
        if (!type || !m || m[1] !== hex) continue;
        events.push(m[2] === undefined ? { type } : { type, x: Number(m[2]), y: Number(m[3]), width: Number(m[4]), height: Number(m[5]) });
      }
      return events;
    },
    stop: () => xev.exitCode === null && xev.signalCode === null && xev.kill('SIGTERM'),
  };
}

/** Moves the pointer to `x, y` on the screen. */
export function pointerTo(x, y) {
  run('xdotool', ['mousemove', '--sync', String(x), String(y)]);
}

/** The visible window titled exactly `title`, or null. */
export function windowTitled(title) {
  const pattern = `^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
  return run('xdotool', ['search', '--onlyvisible', '--name', pattern]).trim().split('\n')[0] || null;
}

/**
 * Gives window `id` the keyboard focus as a person would, by pointing at
 * it (no window manager: the focus follows the pointer).
 */
export function focusWindow(id) {
  const g = geometry(id);
  pointerTo(g.x + Math.floor(g.width / 2), g.y + Math.floor(g.height / 2));
}

/** Presses `keys` (xdotool's names: Return, Escape, ctrl+l) in the focused window. */
export function press(...keys) {
  run('xdotool', ['key', '--clearmodifiers', ...keys]);
}

/** Types `text` into the focused window, a key at a time (XTEST: real key events). */
export function typeText(text) {
  run('xdotool', ['type', '--delay', '20', text]);
}

/**
 * Answers the app's own native question titled `title` (a GTK message
 * dialog, which no script in the page can answer) with `keys`: `alt+s`
 * for a "_Start" button, `Escape` for no. Pressed again every 2 s while
 * the dialog stays (a key sent before it had the focus is lost), until it
 * closes.
 */
export async function answer(title, ...keys) {
  const id = await until(`the dialog "${title}" opens`, () => windowTitled(title), 30_000);
  let next = 0;
  await until(`the dialog "${title}" takes ${keys.join(' ')} and closes`, () => {
    if (windowTitled(title) === null) return true;
    if (Date.now() >= next) {
      focusWindow(id);
      press(...keys);
      next = Date.now() + 2000;
    }
    return false;
  }, 30_000);
}
