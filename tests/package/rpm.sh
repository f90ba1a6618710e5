#!/usr/bin/env bash
# The release .rpm, checked on this Debian machine as far as one can be
# without an rpm-based system (docs/testing.md, "Where the time goes"):
#   1. its header, read by rpm (Debian's package): the name, the version
#      Cargo says, the bubblewrap dependency, and the files — the binary,
#      the desktop entry, the icons, the speech server's setup;
#   2. what it would install, unpacked with rpm2cpio into a folder, runs:
#      the app from there sends a message under Xvfb against hearth-sim
#      (tests/package/installed.e2e.mjs), keeping its database in the XDG
#      data folder.
# What this cannot show (dnf resolving the dependency, the scriptlets of a
# real install) needs an rpm-based machine.
#
#   tests/package/rpm.sh [PATH_TO_RPM]    (default: the newest one the release build made)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

fail() {
    echo "rpm: $*" >&2
    exit 1
}

pkg="${1:-}"
if [[ -z "$pkg" ]]; then
    pkg="$(ls -t "$target"/release/bundle/rpm/*.rpm 2>/dev/null | head -n 1 || true)"
fi
[[ -n "$pkg" && -f "$pkg" ]] || fail "no .rpm found; build it with: npx tauri build --bundles deb,rpm"
command -v rpm >/dev/null && command -v rpm2cpio >/dev/null && command -v cpio >/dev/null ||
    fail "rpm, rpm2cpio and cpio are needed; run scripts/setup.sh --test"

want="$(cargo metadata --no-deps --format-version 1 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="hearth-app");if(p)console.log(p.version)})')"
version="$(rpm -qp --queryformat '%{VERSION}' "$pkg" 2>/dev/null)"
[[ "$version" == "$want" ]] || fail "the package says version $version, Cargo says $want"
rpm -qp --requires "$pkg" 2>/dev/null | grep -q '^bubblewrap' || fail "the package does not require bubblewrap"
files="$(rpm -qpl "$pkg" 2>/dev/null)"
grep -qx /usr/bin/hearth-app <<<"$files" || fail "the package lacks /usr/bin/hearth-app"
grep -qx /usr/share/applications/Hearth.desktop <<<"$files" || fail "the package lacks the desktop entry"
icons="$(grep -c '^/usr/share/icons/hicolor/.*/apps/hearth-app\.png$' <<<"$files" || true)"
((icons >= 2)) || fail "expected the icons in hicolor, found $icons"
grep -qx /usr/share/hearth/apparmor/hearth-app <<<"$files" || fail "the package lacks its AppArmor profile"
# The same AppArmor scripts as the .deb's (played by tests/package/apparmor.sh).
scripts="$(rpm -qp --scripts "$pkg" 2>/dev/null)"
grep -q 'apparmor_parser -r -T -W "$dst"' <<<"$scripts" || fail "the package's %post does not load the AppArmor profile"
grep -q '^remove | 0)' <<<"$scripts" || fail "the package's %preun does not remove the profile on erase only"
for f in setup.sh hearth_stt.py hearth_tts.py requirements.txt; do
    grep -q "/voice/$f\$" <<<"$files" || fail "the package lacks voice/$f"
done

unpacked="$(mktemp -d -t hearth-rpm.XXXXXX)"
data="$(mktemp -d -t hearth-rpm-data.XXXXXX)"
trap 'rm -rf "$unpacked" "$unpacked.cpio" "$data"' EXIT
# rpm2cpio (rpm 4.18) exits 1 on the payload Tauri's bundler writes although
# it writes all of it (its digests check out: `rpm -K`), so what counts is
# that cpio unpacks it and every file the header lists is there.
rpm -K "$pkg" >/dev/null 2>&1 || fail "the package's digests do not check out"
rpm2cpio "$pkg" >"$unpacked.cpio" 2>/dev/null || true
(cd "$unpacked" && cpio -idm --quiet <"$unpacked.cpio") || fail "the package's payload could not be unpacked"
rm -f "$unpacked.cpio"
missing=0
while IFS= read -r f; do
    [[ -e "$unpacked$f" ]] || { echo "rpm: listed but not in the payload: $f" >&2; missing=$((missing + 1)); }
done <<<"$files"
((missing == 0)) || fail "$missing file(s) the header lists are not in the payload"
app="$unpacked/usr/bin/hearth-app"
[[ -x "$app" ]] || fail "unpacked, /usr/bin/hearth-app is not a program"
desktop="$unpacked/usr/share/applications/Hearth.desktop"
grep -qx 'Name=Hearth' "$desktop" || fail "the desktop entry does not name Hearth"
grep -q '^Exec=hearth-app' "$desktop" || fail "the desktop entry does not start hearth-app"

echo "rpm: the app the package holds sends a message"
HEARTH_E2E_DATA_DIR="$data" HEARTH_PACKAGE_PHASE=first \
    HEARTH_E2E_TESTS=tests/package/installed.e2e.mjs tests/e2e/run.sh "$app"
[[ -s "$data/data/hearth/hearth.sqlite" ]] || fail "the app kept no database in the XDG data folder"
echo "rpm: ok ($(basename "$pkg"), version $version)"
