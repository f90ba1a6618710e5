// Desktop benchmarks on the real app (WebKitGTK under Xvfb, through
// tauri-driver, against hearth-sim): cold start to an interactive window,
// and the memory of the whole app when idle, WebKit's processes included.
// Run with `make bench-desktop` (tests/e2e/run.sh with this file); prints
// one JSON line per round and a summary line for BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { app, startApp } from '../../tests/e2e/support.mjs';

const ROUNDS = Number(process.env.HEARTH_BENCH_ROUNDS ?? 5);
const IDLE_MS = 5_000;

/** Epoch ms when a process started (from /proc: boot time + start ticks). */
function startedAt(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const btime = Number(/btime (\d+)/.exec(readFileSync('/proc/stat', 'utf8'))[1]);
  return btime * 1000 + (ticks / hz) * 1000;
}

/** The newest process running the app binary. */
function appPid() {
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  let best = null;
  for (const pid of pids) {
    try {
      const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
      if (exe === app && (best === null || Number(pid) > Number(best))) best = pid;
    } catch {
      // Gone meanwhile.
    }
  }
  if (best === null) throw new Error(`no process runs ${app}`);
  return best;
}

/** The pid and all its descendants. */
function tree(root) {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  }
  return out;
}

/** Proportional set size of the process tree, in MiB, with names. */
function pss(root) {
  let total = 0;
  const parts = [];
  for (const pid of tree(root)) {
    try {
      const kb = Number(/Pss:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]);
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      total += kb;
      parts.push({ name, mib: +(kb / 1024).toFixed(1) });
    } catch {
      // Gone meanwhile.
    }
  }
  return { mib: +(total / 1024).toFixed(1), parts };
}

/**
 * Where a process's memory goes: PSS by mapping (shared libraries by name,
 * the heap, anonymous memory, the binary), in MiB, the largest first.
 */
function pssByMapping(pid) {
  const sizes = new Map();
  let name = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1].trim();
      name = path === '' ? '[anonymous]' : path.startsWith('[') ? path : path.split('/').pop().replace(/\.so[.\d]*$/, '.so');
      continue;
    }
    const pss = /^Pss:\s+(\d+) kB/.exec(line);
    if (pss && name) sizes.set(name, (sizes.get(name) ?? 0) + Number(pss[1]));
  }
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([what, kb]) => ({ what, mib: +(kb / 1024).toFixed(1) }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('cold start and idle memory', async () => {
  const starts = [];
  const memories = [];
  for (let round = 0; round < ROUNDS; round++) {
    const browser = await startApp();
    try {
      const pid = appPid();
      const composer = browser.$('[data-testid="composer-input"]');
      await composer.waitForExist({ timeout: 30_000, interval: 10 });
      // When the page could take input, by the page's own clock (epoch ms).
      const readyAt = await browser.execute(() => performance.timeOrigin + performance.now());
      const startMs = readyAt - startedAt(pid);
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const memory = pss(pid);
      starts.push(startMs);
      memories.push(memory.mib);
      const web = tree(pid).find((p) => readFileSync(`/proc/${p}/comm`, 'utf8').startsWith('WebKitWebProces'));
      const app = round === 0 ? { app_by_mapping: pssByMapping(pid), web_by_mapping: web ? pssByMapping(web) : [] } : {};
      console.log(JSON.stringify({ round, cold_start_ms: Math.round(startMs), idle_pss_mib: memory.mib, processes: memory.parts, ...app }));
    } finally {
      await browser.deleteSession();
    }
  }
  console.log(
    JSON.stringify({
      summary: true,
      rounds: ROUNDS,
      cold_start_ms_median: Math.round(median(starts)),
      cold_start_ms_max: Math.round(Math.max(...starts)),
      idle_pss_mib_median: median(memories),
    }),
  );
});
