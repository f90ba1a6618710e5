// Runs the Chromium UI tests (`npm run test:ui`) with one browser for the
// whole suite: Chromium is started once here, and every test file's
// process connects to it (harness.mjs, `launch()`) instead of starting its
// own; each test still opens a fresh context. Two files run at once (node's
// default is one fewer than the cores: one file at a time on 2 cores): the
// tests mostly wait on the page. Three were faster alone but took the
// cores from the build they run beside (docs/testing.md). Arguments go to
// `node --test` (default: every file in tests/ui/).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchShared } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = await launchShared();
const args = process.argv.slice(2);
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...(args.length > 0 ? args : [here])], {
  stdio: 'inherit',
  env: { ...process.env, HEARTH_CHROMIUM_WS: server.wsEndpoint() },
});
const stop = (signal) => child.kill(signal);
process.on('SIGINT', stop).on('SIGTERM', stop);
const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
await server.close();
process.exit(code);
