// Runs the Chromium UI tests (`npm run test:ui`) with one browser for the
// whole suite: Chromium is started once here, and every test file's
// process connects to it (harness.mjs, `launch()`) instead of starting its
// own; each test still opens a fresh context.
//
// Each file is its own `node --test` process, the largest first, and its
// output is printed whole when it ends, so files running at once never
// mix their lines. How many at once: HEARTH_UI_JOBS (default one, node's
// own default on 2 cores). In CI the suite runs beside the build and the
// Rust tests, and two or three files at once took the build's cores, which
// the rest of the run waits on, and starved the tests that play speech in
// real time (docs/testing.md); once the file named by HEARTH_UI_WIDEN_WHEN
// exists (scripts/test.sh writes it when the Rust tests are over),
// HEARTH_UI_JOBS_LATER files run at once (default: the same as before).
//
// Arguments: test files (default: every *.test.mjs in tests/ui/), and
// options for `node --test` (those starting with a dash, such as
// --test-name-pattern=…), given to every file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchShared } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const options = args.filter((a) => a.startsWith('-'));
const named = args.filter((a) => !a.startsWith('-'));
const files = (named.length > 0
  ? named.map((f) => path.resolve(f))
  : fs.readdirSync(here).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(here, f)))
  // The largest first (more tests, longer): a long file started last would
  // run alone at the end.
  .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size || a.localeCompare(b));

const count = (name, fallback) => {
  const n = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const early = count('HEARTH_UI_JOBS', 1);
const later = count('HEARTH_UI_JOBS_LATER', early);
const widenWhen = process.env.HEARTH_UI_WIDEN_WHEN;
const jobs = () => (widenWhen && fs.existsSync(widenWhen) ? later : early);

const server = await launchShared();
const env = { ...process.env, HEARTH_CHROMIUM_WS: server.wsEndpoint() };
const running = new Set();
const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failedFiles = [];
let stopping = false;

/** Runs one file; resolves when its process has ended and its output is printed. */
function runFile(file) {
  const started = Date.now();
  const child = spawn(process.execPath, ['--test', ...options, file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => out.push(d));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      const text = Buffer.concat(out).toString('utf8');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`# file ${path.relative(process.cwd(), file)} (${seconds} s, exit ${code ?? signal})\n${text}`);
      for (const key of Object.keys(totals)) {
        const m = text.match(new RegExp(`^# ${key} (\\d+)$`, 'm'));
        if (m) totals[key] += Number(m[1]);
      }
      if (code !== 0) failedFiles.push(path.basename(file));
      resolve();
    });
  });
}

const queue = [...files];
await new Promise((done) => {
  // Starts files while there are free places; ends when nothing runs and
  // nothing is left. Called when a file ends and every second (the end of
  // the Rust tests is seen within a second).
  const fill = () => {
    while (!stopping && queue.length > 0 && running.size < jobs()) runFile(queue.shift()).then(fill);
    if ((stopping || queue.length === 0) && running.size === 0) {
      clearInterval(tick);
      done();
    }
  };
  const tick = setInterval(fill, 1000);
  const stop = (signal) => {
    stopping = true;
    for (const child of running) child.kill(signal);
  };
  process.on('SIGINT', stop).on('SIGTERM', stop);
  fill();
});
await server.close();
process.stdout.write(
  `# all files: ${files.length}, tests ${totals.tests}, pass ${totals.pass}, fail ${totals.fail}, ` +
  `cancelled ${totals.cancelled}, skipped ${totals.skipped}, todo ${totals.todo}\n`,
);
if (failedFiles.length > 0) process.stdout.write(`# failed files: ${failedFiles.join(', ')}\n`);
process.exit(failedFiles.length > 0 || stopping || totals.tests === 0 ? 1 : 0);
