#!/usr/bin/env bash
# Quick start: prepares the machine (scripts/setup.sh), builds the web UI and
# the desktop app, and opens Hearth.
#
#   scripts/app.sh         build the release app (UI embedded) and run it
#   scripts/app.sh --debug the debug build the tests use (starts in seconds
#                          after scripts/test.sh)
#   scripts/app.sh --dev   `tauri dev`: Vite with hot reload + the app
#   scripts/app.sh --demo  the app against hearth-sim with a scripted
#                          conversation (no Ollama needed; a throwaway
#                          database and preferences)
#
# Both builds embed the UI (--features tauri/custom-protocol); the release
# one is what `make package` puts in the .deb.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

mode=run
profile=release
for arg in "$@"; do
    case "$arg" in
        --dev) mode=dev ;;
        --debug) profile=debug ;;
        --demo) mode=demo ;;
        -h | --help)
            sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "app.sh: unknown option '$arg' (try --help)" >&2
            exit 2
            ;;
    esac
done

scripts/setup.sh

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "app.sh: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)." >&2
    echo "Hearth is a desktop app: run this from a graphical session, or on a" >&2
    echo "headless machine under a virtual one, e.g.: xvfb-run -a scripts/app.sh" >&2
    exit 1
fi

# The Tauri CLI reads CI as its --ci flag and only accepts true/false.
if [[ -n "${CI:-}" && "${CI}" != "true" && "${CI}" != "false" ]]; then
    export CI=true
fi

if [[ "$mode" == dev ]]; then
    exec npx tauri dev
fi

# Runs `npm run build` (tauri.conf.json's beforeBuildCommand), then cargo.
if [[ "$profile" == debug ]]; then
    npx tauri build --debug --no-bundle
else
    npx tauri build --no-bundle
fi
app="${CARGO_TARGET_DIR:-$root/target}/$profile/hearth-app"
if [[ "$mode" != demo ]]; then
    exec "$app"
fi

# Demo: the simulator plays Ollama; nothing touches the user's own data.
cargo build -q -p hearth-sim
demo_dir="$(mktemp -d -t hearth-demo.XXXXXX)"
eval "$(scripts/sim-start.sh demo/conversation.json "$demo_dir/sim.log")"
trap 'kill "$SIM_PID" 2>/dev/null || true; rm -rf "$demo_dir"' EXIT
echo "app.sh: demo against hearth-sim at $SIM_URL (data in $demo_dir)"
# The Save dialog opens in the demo's folder (Downloads is read from
# user-dirs.dirs), which goes when the demo ends (the trap above).
mkdir -p "$demo_dir/config"
printf 'XDG_DOWNLOAD_DIR="%s"\n' "$demo_dir" >"$demo_dir/config/user-dirs.dirs"
HEARTH_DEMO=1 HEARTH_OLLAMA_URL="$SIM_URL" HEARTH_DB="$demo_dir/demo.sqlite" \
    XDG_CONFIG_HOME="$demo_dir/config" XDG_DATA_HOME="$demo_dir/data" "$app"
