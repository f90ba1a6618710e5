#!/usr/bin/env bash
# Starts hearth-sim on a free loopback port with a script and prints
#   SIM_PID=<pid> SIM_URL=http://127.0.0.1:<port>
# for `eval`. The caller stops it (kill "$SIM_PID"). Used by the demo
# (scripts/app.sh --demo) and the desktop end-to-end run (tests/e2e/run.sh).
#
#   eval "$(scripts/sim-start.sh SCRIPT.json [LOGFILE])"
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="${1:?usage: sim-start.sh SCRIPT.json [LOGFILE]}"
log="${2:-/dev/null}"
sim="${CARGO_TARGET_DIR:-$root/target}/debug/hearth-sim"

if [[ ! -x "$sim" ]]; then
    (cd "$root" && cargo build -q -p hearth-sim) >&2
fi

fifo="$(mktemp -u)"
mkfifo "$fifo"
"$sim" --port 0 --script "$script" >"$fifo" 2>>"$log" &
pid=$!
exec 3<"$fifo"
rm -f "$fifo"
# The first stdout line names the port; the rest goes to the log.
if ! IFS= read -r -t 20 line <&3; then
    kill "$pid" 2>/dev/null || true
    echo "sim-start: hearth-sim did not start (see $log)" >&2
    exit 1
fi
# Keep draining stdout so the simulator never blocks on a full pipe.
cat <&3 >>"$log" &
exec 3<&-
url="${line#listening on }"
echo "SIM_PID=$pid SIM_URL=$url"
