#!/usr/bin/env bash
# The dependency rules of docs/architecture.md, checked on the real graph:
# the core knows no Tauri, HTTP client or SQL; the simulator knows no other
# Hearth crate (a client bug must not hide behind the same bug in it). The MCP
# SDK is used by hearth-mcp alone. The platform-neutral crates use no
# OS-specific API and pull in no Linux-only crate. Inside a crate, the modules import each
# other without a cycle.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail=0
core=$(cargo tree -p hearth-core -e normal --prefix none)
for banned in tauri reqwest rusqlite hyper; do
    if grep -qE "^${banned} v" <<<"$core"; then
        echo "check-deps: hearth-core depends on ${banned}" >&2
        fail=1
    fi
done
sim=$(cargo tree -p hearth-sim -e normal --prefix none)
if grep -E "^hearth-" <<<"$sim" | grep -qv "^hearth-sim v"; then
    echo "check-deps: hearth-sim depends on another hearth crate:" >&2
    grep -E "^hearth-" <<<"$sim" | grep -v "^hearth-sim v" >&2
    fail=1
fi
# The MCP SDK stays behind hearth-mcp (its majors change fast).
rmcp_users=$(cargo tree -i rmcp --depth 1 -e normal --prefix none --workspace 2>/dev/null | grep -E "^hearth-" | sort -u || true)
if [[ "$rmcp_users" != hearth-mcp* || $(wc -l <<<"$rmcp_users") -ne 1 ]]; then
    echo "check-deps: rmcp must be used by hearth-mcp alone, not by:" >&2
    echo "$rmcp_users" >&2
    fail=1
fi
# The platform-neutral crates (docs/platforms.md, "What is already
# platform-neutral") stay so: no OS-specific API in their sources, and no
# Linux-only crate in what they pull in when built for Windows or macOS
# (cargo resolves another target's tree without its standard library,
# which this machine cannot fetch to compile against).
linux_only='^(landlock|seccompiler|dbus|libdbus-sys|dbus-secret-service|dbus-secret-service-keyring-store|inotify|inotify-sys|webkit2gtk|gtk|tao) v'
for c in protocol core http ollama openai sim; do
    if grep -rnE 'std::os::(unix|linux)|\b(libc|rustix|nix)::|"/proc/|"/sys/' "crates/$c/src" >&2; then
        echo "check-deps: hearth-$c uses an OS-specific API above (it is platform-neutral: docs/platforms.md)" >&2
        fail=1
    fi
    for target in x86_64-pc-windows-msvc aarch64-apple-darwin; do
        bad=$(cargo tree -p "hearth-$c" -e normal --target "$target" --prefix none | grep -E "$linux_only" | sort -u || true)
        if [[ -n "$bad" ]]; then
            echo "check-deps: hearth-$c built for $target would pull in Linux-only crates:" >&2
            echo "$bad" >&2
            fail=1
        fi
    done
done
# No import cycle among a library crate's top-level modules, computed from
# their `crate::` paths (scripts/module-cycles.py); the simulator too (its
# router and handlers share `respond.rs`, a leaf, instead of each other).
for src in crates/{core,compose,http,knowledge,mcp,ollama,openai,protocol,sim,store,tools}/src; do
    python3 scripts/module-cycles.py "$src" >&2 || fail=1
done
if ((fail == 0)); then
    echo "check-deps: core has no tauri/reqwest/rusqlite/hyper; sim has no hearth dependency; rmcp only in hearth-mcp; protocol, core, http, ollama, openai and sim have no OS-specific API and no Linux-only crate for Windows or macOS; no module cycle in core, the store, the simulator and the other library crates"
fi
exit "$fail"
