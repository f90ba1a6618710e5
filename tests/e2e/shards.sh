#!/usr/bin/env bash
# The desktop e2e files in two shards at once, each a whole tests/e2e/run.sh
# of its own (its own Xvfb display, tauri-driver, hearth-sim and throwaway
# database), so that one file's app waiting on the webview, a native dialog
# or the simulator's stream leaves the machine to the other's:
#
#   tests/e2e/shards.sh [PATH_TO_APP_BINARY]
#
# The files ($HEARTH_E2E_TESTS or tests/e2e/*.e2e.mjs) are dealt longest
# first to the shard with less work so far. How long a file takes is read
# from the table below (seconds its tests took in CI's run of 2026-12-08, a
# cargo build beside it); a file not in it counts as 8 s. The table only
# balances the shards: a wrong entry makes one shard longer, never a test
# wrong.
# Each shard's output is printed whole when it ends, the first one's
# first; the run fails if either shard fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

declare -A took=(
    [dialogs]=88 [firstrun]=70 [mcp-apps]=60 [artifacts]=46 [sandbox-off]=44
    [hosts]=43 [mcp]=42 [voice]=42 [chat]=40 [notices]=39 [projects]=33
    [attachments]=29 [sandbox]=25 [plan]=23 [desktop]=20 [shell]=11
)
weight() {
    local name
    name="$(basename "$1" .e2e.mjs)"
    echo "${took[$name]:-8}"
}

# shellcheck disable=SC2206  # the glob or the list is meant to split
files=(${HEARTH_E2E_TESTS:-tests/e2e/*.e2e.mjs})
mapfile -t sorted < <(for f in "${files[@]}"; do printf '%s %s\n' "$(weight "$f")" "$f"; done | sort -rn -k1,1 -k2 | cut -d' ' -f2)
shard=("" "")
load=(0 0)
for f in "${sorted[@]}"; do
    i=0
    ((load[1] < load[0])) && i=1
    shard[i]+="${shard[i]:+ }$f"
    load[i]=$((load[i] + $(weight "$f")))
done

logs="$(mktemp -d -t hearth-e2e-shards.XXXXXX)"
pids=()
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
    local rc=$? pid
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$logs"
    exit "$rc"
}
trap cleanup EXIT

for i in 0 1; do
    [[ -n "${shard[i]}" ]] || continue
    echo "e2e shard $((i + 1)) (about ${load[i]} s): ${shard[i]}"
    HEARTH_E2E_TESTS="${shard[i]}" tests/e2e/run.sh "$@" >"$logs/$i.log" 2>&1 &
    pids+=($!)
    # run.sh takes the first free display and port pair: the next shard
    # starts once this one holds them (its "e2e: app" line), so the two
    # never pick the same.
    if ((i == 0)); then
        for _ in $(seq 600); do
            grep -q '^e2e: app ' "$logs/0.log" 2>/dev/null && break
            kill -0 "${pids[0]}" 2>/dev/null || break
            sleep 0.1
        done
    fi
done

rc=0
for i in "${!pids[@]}"; do
    shard_rc=0
    wait "${pids[i]}" || shard_rc=$?
    echo "==> e2e shard $((i + 1)): exit $shard_rc"
    cat "$logs/$i.log"
    ((shard_rc == 0)) || rc=$shard_rc
done
pids=()
exit "$rc"
