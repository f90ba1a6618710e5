#!/usr/bin/env bash
# Every check, in the order CI runs them (.ci/run calls this script):
# setup, formatting, the UI type check, build and Chromium tests, clippy,
# the Rust tests of the whole workspace (including the check that
# ui/src/bindings.ts matches the Rust commands), then the desktop app itself
# in a real webview under Xvfb against hearth-sim (tests/e2e/run.sh), the
# shell sandbox's attack suite and a desktop e2e as an unprivileged user
# (tests/unprivileged/run.sh), the release .deb installed on this machine
# with apt-get, run and removed (tests/package/run.sh), and the real-engine
# stage: the CLI against a real llama.cpp server with a small real model
# (scripts/test-real.sh; the server's build and the model are kept outside
# the clone, in $REALMODEL_HOME, so only the first run on a machine builds
# them).
#
# Each thing is compiled once (docs/testing.md, "Where the time goes"):
#   - clippy lints while the tests are compiled: clippy-driver is the
#     workspace's rustc wrapper for one `cargo build --all-targets` (the
#     targets `cargo clippy --all-targets` checks), so the dependencies are
#     compiled once, in full, instead of once more in check mode;
#   - every cargo command after it uses the same profile, feature set
#     (tauri/custom-protocol) and environment, so the tests, the desktop
#     e2e, the unprivileged run and the real-engine stage run the very
#     binaries that build made; nothing goes through `tauri build --debug`,
#     whose environment would rebuild the app;
#   - the one release build is the .deb users install (docs/adr/0013).
#
# The target directory and the caches live outside the clone
# ($HEARTH_CACHE, default ~/.cache/hearth), and cargo judges the clone's
# files by their content (scripts/build-cache.sh): a second run on the
# same machine, or a fresh clone of it, compiles only the crates a change
# touches. A machine without them builds everything (README, "Tests").
#
# Steps that mostly wait (the Chromium tests, the real model on one thread,
# the llama.cpp build on a new machine) run beside the compiles that keep
# both cores busy, each under its own timeout; their output is printed when
# they are joined. A test that passes only on a quiet machine fails here.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The Tauri CLI reads CI as its --ci flag and only accepts true/false.
if [[ -n "${CI:-}" && "${CI}" != "true" && "${CI}" != "false" ]]; then
    export CI=true
fi

# One target directory per machine, outside any clone, fresh by the
# content of the files rather than their times (scripts/build-cache.sh).
# shellcheck source=scripts/build-cache.sh
source scripts/build-cache.sh
# Our crates compile incrementally, debug and release (Cargo.toml's
# profiles decide, not the caller's environment, so every run builds the
# cache in one mode): a clone at the same path as the last run's reuses
# rustc's incremental data, and a one-file change recompiles what it
# touches (docs/adr/0013-build-profiles.md).
unset CARGO_INCREMENTAL

features=(--features tauri/custom-protocol)
started=$SECONDS

# Clippy as the workspace's rustc wrapper: what `cargo clippy -- -D warnings`
# sets (CLIPPY_ARGS holds clippy's arguments, split by its own separator),
# on a build that also makes the binaries. Dependencies get plain rustc, so
# their compiled form is the same as any other build's.
clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
[[ -x "$clippy_driver" ]] || clippy_driver="$(command -v clippy-driver || true)"
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
logs="$(mktemp -d -t hearth-test.XXXXXX)"

# cpu_s: the CPU time (user and system, in whole seconds) of this shell's
# children that have ended so far, in $cpu (not printed: a command
# substitution would be a shell of its own, with no children). Each step
# runs in a subshell of its own and reads it there as it ends, so the count
# is that step's processes and nothing else: the main shell also collects
# the steps that run beside as they end. What a step leaves running on its
# own (a model server, a display) is not counted.
tick_hz=$(getconf CLK_TCK)
cpu_s() {
    local f
    read -ra f <"/proc/$BASHPID/stat"
    cpu=$(((f[15] + f[16]) / tick_hz))
}

# report NAME RC T0 [LIMIT] [CPU]: the line a step ends with (CPU: the
# seconds of CPU it used, when known).
report() {
    local name=$1 rc=$2 t0=$3 limit=${4:-} used=${5:-}
    if ((rc == 0)); then
        printf '==> %s: ok (%ss%s)\n' "$name" "$((SECONDS - t0))" "${used:+, ${used}s of CPU}"
    elif ((rc == 124 || rc == 137)); then
        printf '\n==> %s: timed out after %ss\n' "$name" "$limit" >&2
    else
        printf '\n==> %s: failed (exit %s)\n' "$name" "$rc" >&2
    fi
}

# step NAME TIMEOUT_SECONDS COMMAND...: runs COMMAND under a timeout and
# reports how long it took; the script stops at the first failure.
step() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    printf '\n==> %s\n' "$name"
    local rc=0
    rm -f "$logs/step.cpu"
    (
        rc=0
        timeout --kill-after=30 "$limit" "$@" || rc=$?
        cpu_s
        echo "$cpu" >"$logs/step.cpu"
        exit "$rc"
    ) || rc=$?
    report "$name" "$rc" "$t0" "$limit" "$(cat "$logs/step.cpu" 2>/dev/null || true)"
    ((rc == 0)) || exit "$rc"
}

# beside NAME TIMEOUT_SECONDS COMMAND...: starts COMMAND in the background,
# under its own timeout, its output kept for `join NAME`.
declare -A bg_pid bg_t0 bg_limit bg_log
beside() {
    local name=$1 limit=$2
    shift 2
    local log
    log="$logs/$(tr -c 'a-zA-Z0-9\n' - <<<"$name").log"
    printf '\n==> %s: started, beside the steps that follow\n' "$name"
    # Its own time, written when it ends (it may end long before its join).
    (
        t0=$SECONDS
        rc=0
        timeout --kill-after=30 "$limit" "$@" </dev/null >"$log" 2>&1 || rc=$?
        cpu_s
        echo "$((SECONDS - t0))s, ${cpu}s of CPU" >"$log.took"
        exit "$rc"
    ) &
    bg_pid[$name]=$!
    bg_t0[$name]=$SECONDS
    bg_limit[$name]=$limit
    bg_log[$name]=$log
}

# join NAME: waits for a background step, prints its output and its time;
# the script stops if it failed.
join() {
    local name=$1 rc=0
    printf '\n==> %s (joined; it started %ss ago)\n' "$name" "$((SECONDS - bg_t0[$name]))"
    wait "${bg_pid[$name]}" || rc=$?
    unset "bg_pid[$name]"
    cat "${bg_log[$name]}"
    local took
    took="$(cat "${bg_log[$name]}.took" 2>/dev/null || echo "?")"
    if ((rc == 0)); then
        printf '==> %s: ok (%s, beside the steps above)\n' "$name" "$took"
    else
        report "$name" "$rc" "${bg_t0[$name]}" "${bg_limit[$name]}"
        exit "$rc"
    fi
}

# unnice NAME: a background step started under `nice` runs at the normal
# priority from now on (the steps it yielded to are over). `timeout` leads
# a process group of its own; what it starts later inherits the new value.
# Lowering a nice value needs root (CI); as a user it stays niced.
unnice() {
    local child
    for child in $(pgrep -P "${bg_pid[$1]}" 2>/dev/null); do
        renice -n 0 -g "$child" >/dev/null 2>&1 || true
    done
}

# A failed step ends the run: what still runs beside it is stopped (the
# process group `timeout` makes for it, so its children too), and its
# output so far shown.
cleanup() {
    local rc=$? name
    local child
    for name in "${!bg_pid[@]}"; do
        # The step's subshell runs `timeout`, which leads a process group
        # of its own: the group goes, then the subshell.
        for child in $(pgrep -P "${bg_pid[$name]}" 2>/dev/null); do
            kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
        done
        kill -TERM "${bg_pid[$name]}" 2>/dev/null || true
        wait "${bg_pid[$name]}" 2>/dev/null || true
        printf '\n==> %s: stopped (the run failed elsewhere); its output so far:\n' "$name" >&2
        tail -n 40 "${bg_log[$name]}" >&2 || true
    done
    rm -rf "$logs"
    exit "$rc"
}
trap cleanup EXIT
# Cold compiles on a 2-core machine take many minutes: the limits are
# generous, and exist so that a hang fails the run instead of stalling it.
step "setup" 1800 scripts/setup.sh --test
# The real model's server and weights (a first run builds llama.cpp, a few
# minutes of mostly one core) while the first checks run.
beside "real model ready" 1800 bash -c 'scripts/realmodel/start.sh --prepare -m qwen05 && scripts/realmodel/start.sh --prepare -m qwen15 && scripts/realmodel/start.sh --prepare -m minilm'
step "cargo fmt" 300 cargo fmt --all -- --check
step "dependency rules" 600 scripts/check-deps.sh
step "svelte-check" 300 npm run --silent check
# Before any cargo step: with custom-protocol the app embeds ui/dist at
# compile time, and does not compile without it.
step "ui build" 300 npm run --silent build
# The Chromium tests wait on the page far more than they compute; they run
# beside the build, the Rust tests and the e2e: one file at a time while
# the build and the Rust tests run, two at once after them
# (tests/ui/run.mjs). More at once took the build's cores, which every
# later step waits on; and three at once from the build's end starved the
# read-aloud tests, which start nextest and play speech in real time (their
# speech server did not answer within read-aloud's 15 s under the loop).
export HEARTH_UI_WIDEN_WHEN="$logs/rust-tests-over" HEARTH_UI_JOBS=1 HEARTH_UI_JOBS_LATER=2
beside "ui tests in chromium" 1500 npm run --silent test:ui
# The wrapper must really lint with warnings as errors: a crate with one
# clippy finding and one rustc warning must fail to build with it.
step "clippy canary" 300 scripts/clippy-canary.sh
# --timings: where the compile time went, crate by crate
# ($CARGO_TARGET_DIR/cargo-timings/cargo-timing.html; docs/testing.md).
# In CI, the app's build script runs only when its inputs changed, not
# whenever the clone is new (scripts/build-inputs.sh).
if [[ "${CI:-}" == "true" ]]; then
    # shellcheck source=scripts/build-inputs.sh
    source scripts/build-inputs.sh
    app_build_inputs "$root"
fi
step "cargo build and clippy" 3600 cargo build --workspace --all-targets --timings "${features[@]}"
join "real model ready"
# The release package from here on, beside the tests: it takes the time
# they leave while they wait. Plain rustc for what users run, trusting this
# machine's update key (scripts/update-key.sh; docs/updates.md) so that the
# update test can sign a newer package for it. The key is kept with the cache: a warm run
# builds with the same one and recompiles nothing for it. No
# beforeBuildCommand: the UI was built above, and writing ui/dist again
# while the tests run would make their cargo rebuild the app.
update_pubkey="$(scripts/update-key.sh)"
# Niced while nextest runs: its speech tests play in real time, and beside
# a release compile at full priority the speech server did not answer in
# time (CI under load, 2026-12-08). After nextest it runs at full priority
# when the cache has a release build, since it then compiles only what
# changed, incrementally (a minute or so of CPU; left at a tenth of the
# machine it was still compiling 730 s into a run under load). A new
# machine's release build (every dependency at `opt-level = 3`, about
# 1,700 s of CPU) stays niced until the tests are over.
warm_release=false
[[ -x "$CARGO_TARGET_DIR/release/hearth-app" ]] && warm_release=true
beside "release package" 2400 nice -n 10 env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
    HEARTH_UPDATE_PUBKEY="$update_pubkey" npx tauri build --bundles deb,rpm \
    --config '{"build":{"beforeBuildCommand":""}}'
# The real model on one thread, beside the tests, the e2e and the release
# build (which yields to it while niced), so none waits for the other; in
# three parts of about the same length, each with a server of its own (and
# its port above for a second one): memory, the tool call and reasoning;
# the cache and /plan; the rest (the seeded Agent on 0.5B and 1.5B its
# longest check).
# In two parts (memory and /plan beside the rest) each took 860 s under
# load and was the run's longest path: a server on one thread beside a
# build gets a small share of the machine (docs/testing.md).
beside "real engine" 2400 env HEARTH_PREBUILT="$CARGO_TARGET_DIR/debug" \
    HEARTH_REAL_CHECKS="1 3 7 8 10 11 12" scripts/test-real.sh
beside "real engine: memory, the tool call, reasoning" 2400 env HEARTH_PREBUILT="$CARGO_TARGET_DIR/debug" \
    HEARTH_REAL_CHECKS="4 5 6" HEARTH_REAL_PORT=18084 scripts/test-real.sh
beside "real engine: the cache and /plan" 2400 env HEARTH_PREBUILT="$CARGO_TARGET_DIR/debug" \
    HEARTH_REAL_CHECKS="2 9" HEARTH_REAL_PORT=18088 scripts/test-real.sh
# .config/nextest.toml: 4 tests at a time, the longest first.
step "cargo nextest" 2400 cargo nextest run --workspace "${features[@]}"
if $warm_release; then
    unnice "release package"
fi
touch "$HEARTH_UI_WIDEN_WHEN"
# Two shards at once, each its own app, display and simulator.
step "desktop e2e" 900 tests/e2e/shards.sh "$CARGO_TARGET_DIR/debug/hearth-app"
step "as an unprivileged user" 900 tests/unprivileged/run.sh
# Joined here, not after the build: when only our crates compile (a warm
# cache), the build ends minutes before the Chromium tests do.
join "ui tests in chromium"
# The tests are over: a niced release build no longer yields to them.
unnice "release package"
join "release package"
step "package install" 600 tests/package/run.sh
step "package update" 600 tests/package/update.sh
step "rpm package" 600 tests/package/rpm.sh
join "real engine"
join "real engine: memory, the tool call, reasoning"
join "real engine: the cache and /plan"

printf '\n==> all checks passed in %ss\n' "$((SECONDS - started))"
