#!/usr/bin/env bash
# Every check, in the order CI runs them (.ci/run calls this script):
# setup, formatting, the UI type check, build and Chromium tests, clippy,
# the Rust tests of the whole workspace (including the check that
# ui/src/bindings.ts matches the Rust commands), then the desktop app itself
# in a real webview under Xvfb against hearth-sim (tests/e2e/run.sh), the
# release .deb installed on this machine with apt-get, run and removed
# (tests/package/run.sh), and last the real-engine stage: the CLI and the cache benchmark against a real
# llama.cpp server with a small real model (scripts/test-real.sh; the
# server's build and the model are kept outside the clone, in
# $REALMODEL_HOME, so only the first run on a machine builds them).
#
# Every cargo command uses the same feature set (tauri/custom-protocol), so
# the app and its dependencies are compiled once, not once per variant.
# Each step is bounded by a timeout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The Tauri CLI reads CI as its --ci flag and only accepts true/false.
if [[ -n "${CI:-}" && "${CI}" != "true" && "${CI}" != "false" ]]; then
    export CI=true
fi

features=(--features tauri/custom-protocol)
started=$SECONDS

# step NAME TIMEOUT_SECONDS COMMAND...: runs COMMAND under a timeout and
# reports how long it took; the script stops at the first failure.
step() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    printf '\n==> %s\n' "$name"
    local rc=0
    timeout --kill-after=30 "$limit" "$@" || rc=$?
    if ((rc != 0)); then
        if ((rc == 124 || rc == 137)); then
            printf '\n==> %s: timed out after %ss\n' "$name" "$limit" >&2
        else
            printf '\n==> %s: failed (exit %s)\n' "$name" "$rc" >&2
        fi
        exit "$rc"
    fi
    printf '==> %s: ok (%ss)\n' "$name" "$((SECONDS - t0))"
}

# Cold compiles on a 2-core machine take several minutes: the limits are
# generous, and exist so that a hang fails the run instead of stalling it.
step "setup" 1800 scripts/setup.sh --test
step "cargo fmt" 300 cargo fmt --all -- --check
step "dependency rules" 600 scripts/check-deps.sh
step "svelte-check" 300 npm run --silent check
# Before any cargo step: with custom-protocol the app embeds ui/dist at
# compile time, and does not compile without it.
step "ui build" 300 npm run --silent build
step "ui tests (chromium)" 900 npm run --silent test:ui
step "cargo clippy" 2400 cargo clippy --workspace --all-targets "${features[@]}" -- -D warnings
step "cargo nextest" 2400 cargo nextest run --workspace "${features[@]}"
step "desktop build" 2400 npx tauri build --debug --no-bundle
step "desktop e2e" 600 tests/e2e/run.sh
step "release package" 2400 npx tauri build --bundles deb
step "package install" 600 tests/package/run.sh
step "real engine" 2400 scripts/test-real.sh

printf '\n==> all checks passed in %ss\n' "$((SECONDS - started))"
