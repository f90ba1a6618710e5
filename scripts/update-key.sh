#!/usr/bin/env bash
# The update key of this machine (docs/updates.md): a minisign key pair
# under $HEARTH_CACHE/update-key, made the first time it is asked for. CI's
# release package is built trusting it (HEARTH_UPDATE_PUBKEY) and
# tests/package/update.sh signs the newer package with it. It is a test key:
# it never leaves the machine and is never committed; a published release
# is built with the project's own key instead.
#
#   scripts/update-key.sh          prints the public key (making the pair if needed)
#   scripts/update-key.sh --path   prints the private key's path (making the pair if needed)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${HEARTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hearth}"
key="$cache/update-key/hearth.key"
if [[ ! -s "$key" || ! -s "$key.pub" ]]; then
    mkdir -p "$(dirname "$key")"
    chmod 700 "$(dirname "$key")"
    (cd "$root" && npx --no-install tauri signer generate -w "$key" --ci -p "" --force >/dev/null) ||
        { echo "update-key: could not make a key at $key" >&2; exit 1; }
fi
if [[ "${1:-}" == --path ]]; then
    echo "$key"
else
    cat "$key.pub"
fi
