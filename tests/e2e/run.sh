#!/usr/bin/env bash
# Desktop end-to-end test: runs the built app in a real WebKitGTK webview on a
# virtual X display and drives it through tauri-driver + WebKitWebDriver.
#
#   tests/e2e/run.sh [PATH_TO_APP_BINARY]
#
# The binary must be built with the UI embedded, i.e. `npx tauri build --debug
# --no-bundle` (= cargo build --features tauri/custom-protocol); a plain cargo
# build loads the Vite dev URL and shows an empty window. Default binary:
# $CARGO_TARGET_DIR/debug/hearth-app (target/ when unset).
#
# Starts hearth-sim (tests/e2e/sim-script.json) in place of Ollama, Xvfb and
# tauri-driver, runs tests/e2e/*.e2e.mjs (or $HEARTH_E2E_TESTS) with node's
# test runner, and stops them all on exit (tauri-driver with SIGTERM:
# SIGKILL would orphan WebKitWebDriver). The app runs on a throwaway
# database, preferences and downloads folder. Screenshots go to
# tests/e2e/screenshots/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

app="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/hearth-app}"

fail() {
    echo "e2e: $*" >&2
    exit 1
}

[[ -x "$app" ]] || fail "no app binary at $app; build it first with: npx tauri build --debug --no-bundle"
for tool in Xvfb tauri-driver WebKitWebDriver import node xdotool xev xprop stdbuf dbus-daemon dbus-send; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing; run scripts/setup.sh --test"
done
/usr/bin/python3 -c 'import gi' 2>/dev/null || fail "python3-gi is missing; run scripts/setup.sh --test"

# The version the window must show: the app package's, from cargo itself
# (or from $HEARTH_VERSION, read by whoever runs this as a user who cannot
# run root's cargo: tests/unprivileged/run.sh).
version="${HEARTH_VERSION:-$(cargo metadata --no-deps --format-version 1 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="hearth-app");if(p)console.log(p.version)})')}"
[[ -n "$version" ]] || fail "could not read the hearth-app version from cargo metadata"

xvfb_pid=""
driver_pid=""
SIM_PID=""
# $HEARTH_E2E_DATA_DIR: a folder kept after the run, where the app finds its
# database as an installed app does (the XDG data folder, no $HEARTH_DB):
# the package test runs the installed app twice on the same data.
keep_data="${HEARTH_E2E_DATA_DIR:-}"
if [[ -n "$keep_data" ]]; then
    mkdir -p "$keep_data"
    data_dir="$keep_data"
else
    data_dir="$(mktemp -d -t hearth-e2e.XXXXXX)"
fi
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
    local rc=$?
    if [[ -n "$SIM_PID" ]]; then
        kill -TERM "$SIM_PID" 2>/dev/null || true
    fi
    if [[ -n "$driver_pid" ]] && kill -0 "$driver_pid" 2>/dev/null; then
        kill -TERM "$driver_pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$driver_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$driver_pid" 2>/dev/null; then
            echo "e2e: tauri-driver ignored SIGTERM for 5 s; killing it" >&2
            kill -KILL "$driver_pid" 2>/dev/null || true
        fi
    fi
    if [[ -n "$xvfb_pid" ]] && kill -0 "$xvfb_pid" 2>/dev/null; then
        kill -TERM "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    # The app's web process can outlive the driver by a moment and still
    # write its shader cache here: removing the folder is retried, and a
    # folder left in /tmp is reported, never a failed run.
    [[ -n "$keep_data" ]] && exit "$rc"
    for _ in $(seq 50); do
        rm -rf "$data_dir" 2>/dev/null && break
        sleep 0.1
    done
    if [[ -e "$data_dir" ]]; then
        echo "e2e: could not remove $data_dir (a process still writes there)" >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free display number (another test run or a developer's Xvfb may hold :99).
display_num=""
for n in $(seq 99 140); do
    if [[ ! -e "/tmp/.X$n-lock" && ! -e "/tmp/.X11-unix/X$n" ]]; then
        display_num=$n
        break
    fi
done
[[ -n "$display_num" ]] || fail "no free X display between :99 and :140"
export DISPLAY=":$display_num"

# -noreset: an X server resets when its last client leaves, and a client
# that connects meanwhile fails ("Failed to initialize GTK"): the app started
# again after its last window closed (chat.e2e.mjs's restart) or restarting
# into an update (tests/package/update.e2e.mjs) met that now and then under
# load (two CI runs, 2026-12-07). Checked here: 300 connections one after
# another, each the only client, failed 5 times without it and never with it.
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do
    [[ -S "/tmp/.X11-unix/X$display_num" ]] && break
    kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited at start"
    sleep 0.1
done
[[ -S "/tmp/.X11-unix/X$display_num" ]] || fail "Xvfb did not open $DISPLAY within 10 s"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Two free ports: tauri-driver's and the WebKitWebDriver's behind it.
port=""
for p in $(seq 4444 2 4500); do
    if ! port_busy "$p" && ! port_busy "$((p + 1))"; then
        port=$p
        break
    fi
done
[[ -n "$port" ]] || fail "no free port pair between 4444 and 4501"

# The simulator plays Ollama; the app (spawned by WebKitWebDriver, under
# tauri-driver) inherits these and touches none of the user's own files.
[[ -x "${CARGO_TARGET_DIR:-$root/target}/debug/hearth-sim" ]] || cargo build -q -p hearth-sim
eval "$(scripts/sim-start.sh tests/e2e/sim-script.json "$data_dir/sim.log")"
export HEARTH_OLLAMA_URL="$SIM_URL"
if [[ -z "$keep_data" ]]; then
    export HEARTH_DB="$data_dir/hearth.sqlite"
else
    unset HEARTH_DB
fi
# No session bus for the apps WebDriver starts: one file's app may still be
# ending when the next file's starts on the same database, and on a bus the
# second would hand over to it and exit (one window per database). CI has
# no bus either. desktop.e2e.mjs starts a bus of its own.
export DBUS_SESSION_BUS_ADDRESS="unix:path=$data_dir/no-session-bus"
export XDG_CONFIG_HOME="$data_dir/config" XDG_DATA_HOME="$data_dir/data"
export XDG_CACHE_HOME="$data_dir/cache"
# Downloads (where the Save dialog opens) is read from user-dirs.dirs, not
# from the environment.
mkdir -p "$data_dir/downloads" "$XDG_CONFIG_HOME"
printf 'XDG_DOWNLOAD_DIR="%s"\n' "$data_dir/downloads" >"$XDG_CONFIG_HOME/user-dirs.dirs"

driver_log="$(mktemp -t hearth-tauri-driver.XXXXXX.log)"
tauri-driver --port "$port" --native-port "$((port + 1))" >"$driver_log" 2>&1 &
driver_pid=$!
for _ in $(seq 200); do
    port_busy "$port" && break
    kill -0 "$driver_pid" 2>/dev/null || {
        cat "$driver_log" >&2
        fail "tauri-driver exited at start"
    }
    sleep 0.1
done
port_busy "$port" || fail "tauri-driver did not listen on $port within 20 s"

echo "e2e: app $app, version $version, display $DISPLAY, tauri-driver :$port, sim $SIM_URL"
rc=0
# One file at a time: every file starts its own app session.
# shellcheck disable=SC2086  # the glob is meant to expand
HEARTH_APP="$app" HEARTH_VERSION="$version" HEARTH_E2E_PORT="$port" \
    HEARTH_SCREENSHOTS="$root/tests/e2e/screenshots" HEARTH_SIM_URL="$SIM_URL" \
    timeout --kill-after=10 480 node --test --test-concurrency=1 --test-timeout=180000 \
    ${HEARTH_E2E_TESTS:-tests/e2e/*.e2e.mjs} || rc=$?
if ((rc != 0)); then
    echo "e2e: failed (exit $rc); tauri-driver log:" >&2
    tail -n 50 "$driver_log" >&2
fi
rm -f "$driver_log"
exit "$rc"
