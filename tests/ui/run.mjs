// Runs the Chromium UI tests (`npm run test:ui`) with one browser for the
// whole suite: Chromium is started once here, and every test file's
// process connects to it (harness.mjs, `launch()`) instead of starting its
// own; each test still opens a fresh context. One file at a time (node's
// default on 2 cores): the suite runs beside the build, and two or three
// files at once finished it sooner but took the build's cores, which the
// rest of the run waits on (docs/testing.md). Arguments go to `node --test`
// (default: every file in tests/ui/).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchShared } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = await launchShared();
const args = process.argv.slice(2);
const child = spawn(process.execPath, ['--test', ...(args.length > 0 ? args : [here])], {
  stdio: 'inherit',
  env: { ...process.env, HEARTH_CHROMIUM_WS: server.wsEndpoint() },
});
const stop = (signal) => child.kill(signal);
process.on('SIGINT', stop).on('SIGTERM', stop);
const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
await server.close();
process.exit(code);
