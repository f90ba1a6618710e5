#!/usr/bin/env bash
# The release .deb on this machine, as a user gets it:
#   1. `apt-get install ./….deb` (its dependencies from the archive);
#   2. the package's files: the binary, the desktop entry, the icons, the
#      version Cargo says, the AppArmor profile and its scripts
#      (tests/package/apparmor.sh);
#   3. the installed /usr/bin/hearth-app under Xvfb against hearth-sim
#      (tests/e2e/run.sh), sending a message;
#   4. `apt-get remove`, then install again: the conversation is still there
#      (the database lives in the XDG data folder, not in the package);
#   5. removed at the end (also when a step fails).
#
#   tests/package/run.sh [PATH_TO_DEB]    (default: the newest one `make package` built)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

fail() {
    echo "package: $*" >&2
    exit 1
}

deb="${1:-}"
if [[ -z "$deb" ]]; then
    deb="$(ls -t "$target"/release/bundle/deb/*.deb 2>/dev/null | head -n 1 || true)"
fi
[[ -n "$deb" && -f "$deb" ]] || fail "no .deb found; build it with: make package"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"

sudo=()
if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "installing a package needs root or sudo"
    sudo=(sudo)
fi

package="$(dpkg-deb --field "$deb" Package)"
want="$(cargo metadata --no-deps --format-version 1 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="hearth-app");if(p)console.log(p.version)})')"
if dpkg-query -W "$package" >/dev/null 2>&1; then
    fail "$package is already installed here; remove it first (this test installs and removes it)"
fi

data="$(mktemp -d -t hearth-package.XXXXXX)"
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
    local rc=$?
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        "${sudo[@]}" apt-get remove -y -qq "$package" >/dev/null || true
    fi
    rm -rf "$data"
    exit "$rc"
}
trap cleanup EXIT

install() {
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
}

echo "package: installing $deb"
install
[[ "$(dpkg-query -W -f='${Version}' "$package")" == "$want" ]] ||
    fail "the package says version $(dpkg-query -W -f='${Version}' "$package"), Cargo says $want"
[[ -x /usr/bin/hearth-app ]] || fail "/usr/bin/hearth-app is missing"
desktop=/usr/share/applications/Hearth.desktop
[[ -f "$desktop" ]] || fail "no desktop entry at $desktop"
grep -qx 'Name=Hearth' "$desktop" || fail "the desktop entry does not name Hearth"
grep -q '^Exec=hearth-app' "$desktop" || fail "the desktop entry does not start hearth-app"
icons="$(dpkg -L "$package" | grep -c '^/usr/share/icons/hicolor/.*/apps/hearth-app\.png$' || true)"
((icons >= 2)) || fail "expected the icons in hicolor, found $icons"
dpkg-query -W -f='${Depends}' "$package" | grep -q bubblewrap || fail "the package does not depend on bubblewrap"
# The speech-to-text server's setup comes with the app (docs/voice.md): the
# app names this file when no speech server is set up.
listed="$(dpkg -L "$package")"
grep -q '/voice/setup\.sh$' <<<"$listed" || fail "the package lacks voice/setup.sh"
grep -q '/voice/hearth_stt\.py$' <<<"$listed" || fail "the package lacks voice/hearth_stt.py"
grep -q '/voice/hearth_tts\.py$' <<<"$listed" || fail "the package lacks voice/hearth_tts.py"
grep -q '/voice/requirements\.txt$' <<<"$listed" || fail "the package lacks voice/requirements.txt"

# The AppArmor profile (packaging/): shipped, put in place only where the
# kernel mediates user namespaces, and the scripts' every case played in a
# namespace of their own (tests/package/apparmor.sh).
[[ -s /usr/share/hearth/apparmor/hearth-app ]] || fail "the package lacks its AppArmor profile"
if [[ -e /sys/kernel/security/apparmor/features/namespaces/userns_create ||
    -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]]; then
    [[ -s /etc/apparmor.d/hearth-app ]] || fail "AppArmor mediates user namespaces here, and the package did not install its profile"
else
    [[ ! -e /etc/apparmor.d/hearth-app ]] || fail "the package installed an AppArmor profile where none is needed"
fi
if [[ "$(id -u)" == 0 ]]; then
    tests/package/apparmor.sh "$deb"
else
    "${sudo[@]}" tests/package/apparmor.sh "$deb"
fi

echo "package: the installed app sends a message"
HEARTH_E2E_DATA_DIR="$data" HEARTH_PACKAGE_PHASE=first \
    HEARTH_E2E_TESTS=tests/package/installed.e2e.mjs tests/e2e/run.sh /usr/bin/hearth-app
db="$data/data/hearth/hearth.sqlite"
[[ -s "$db" ]] || fail "the app kept no database in the XDG data folder ($db)"

echo "package: removed and installed again"
"${sudo[@]}" apt-get remove -y -qq "$package" >/dev/null
[[ ! -e /usr/bin/hearth-app ]] || fail "apt-get remove left /usr/bin/hearth-app"
[[ -s "$db" ]] || fail "removing the package removed the user's database"
[[ ! -e /etc/apparmor.d/hearth-app ]] || fail "apt-get remove left /etc/apparmor.d/hearth-app"
install
HEARTH_E2E_DATA_DIR="$data" HEARTH_PACKAGE_PHASE=again \
    HEARTH_E2E_TESTS=tests/package/installed.e2e.mjs tests/e2e/run.sh /usr/bin/hearth-app
echo "package: ok ($package $want)"
