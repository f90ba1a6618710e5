#!/usr/bin/env bash
# The installed app updates itself (docs/updates.md), as a user meets it:
#   1. the release .deb, built with the update key of this machine
#      (scripts/update-key.sh), is installed with apt;
#   2. a newer package is made from it — the same files, the version one
#      patch higher — and signed with that key; beside it three forgeries:
#      the same package signed with another key, one altered after
#      signing, and the installed version's own package, genuinely
#      signed, offered as the newer version (a rollback);
#   3. an https server on loopback (its own certificate, trusted by the app
#      through SSL_CERT_FILE) serves the update description;
#   4. tests/package/update.e2e.mjs: the app finds each offer and shows
#      what it changes; the three forged ones are refused with the running
#      version left installed and running; the genuine one is installed on
#      the person's word and the app restarts into it on the same database;
#   5. removed at the end (also when a step fails).
#
#   tests/package/update.sh [PATH_TO_DEB]    (default: the newest release .deb)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

fail() {
    echo "update: $*" >&2
    exit 1
}

deb="${1:-}"
if [[ -z "$deb" ]]; then
    deb="$(ls -t "$target"/release/bundle/deb/*.deb 2>/dev/null | head -n 1 || true)"
fi
[[ -n "$deb" && -f "$deb" ]] || fail "no .deb found; build it with scripts/test.sh (which sets the update key)"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
key="$(scripts/update-key.sh --path)"
[[ -s "$key" && -s "$key.pub" ]] || fail "no update key at $key; scripts/update-key.sh makes one"
for tool in openssl python3 dpkg-deb; do
    command -v "$tool" >/dev/null || fail "$tool is needed; run scripts/setup.sh --test"
done
sudo=()
if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "installing a package needs root or sudo"
    sudo=(sudo)
fi

package="$(dpkg-deb --field "$deb" Package)"
current="$(dpkg-deb --field "$deb" Version)"
if dpkg-query -W "$package" >/dev/null 2>&1; then
    fail "$package is already installed here; remove it first (this test installs and removes it)"
fi
IFS=. read -r major minor patch <<<"${current%%[-+~]*}"
next="$major.$minor.$((patch + 1))"

work="$(mktemp -d -t hearth-update.XXXXXX)"
server_pid=""
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
    local rc=$?
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
    pkill -x -f "/usr/bin/hearth-app.*" 2>/dev/null || true
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        "${sudo[@]}" apt-get remove -y -qq "$package" >/dev/null || true
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT

echo "update: installing $deb ($current)"
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
# The copy must trust this key: a package built without it never updates
# itself, and this test would only see it say so.
grep -qF "$(cat "$key.pub")" /usr/bin/hearth-app ||
    fail "the installed app was not built with this machine's update key (HEARTH_UPDATE_PUBKEY from scripts/update-key.sh)"

# The newer package: the release's files under version $next.
www="$work/www"
mkdir -p "$www" "$work/pkg"
dpkg-deb -R "$deb" "$work/pkg"
sed -i "s/^Version: .*/Version: $next/" "$work/pkg/DEBIAN/control"
newer="$www/Hearth_${next}_amd64.deb"
dpkg-deb -Zgzip --root-owner-group -b "$work/pkg" "$newer" >/dev/null
rm -rf "$work/pkg"
sign() { # sign FILE KEY: the signature file's content
    npx --no-install tauri signer sign -f "$2" -p "" "$1" >/dev/null 2>&1 || fail "could not sign $1"
    cat "$1.sig"
}
genuine_sig="$(sign "$newer" "$key")"
# Signed by someone else's key: a key pair of the test's own.
npx --no-install tauri signer generate -w "$work/other.key" --ci -p "" >/dev/null 2>&1 || fail "could not make a second key"
other="$www/Hearth_${next}_other.deb"
cp "$newer" "$other"
other_sig="$(sign "$other" "$work/other.key")"
# Altered after signing: one byte of the data changed, the genuine signature.
altered="$www/Hearth_${next}_altered.deb"
cp "$newer" "$altered"
size="$(stat -c %s "$altered")"
printf '\x00' | dd of="$altered" bs=1 seek="$((size / 2))" conv=notrunc status=none
# Genuinely signed but not what it claims: the installed version's own
# package offered as $next (a rollback to an older release would look so).
relabelled="$www/Hearth_${current}_relabelled.deb"
cp "$deb" "$relabelled"
relabelled_sig="$(sign "$relabelled" "$key")"

# The https server, its certificate for 127.0.0.1 only.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/tls.key" -out "$work/tls.pem" 2>/dev/null
python3 - "$www" "$work/tls.pem" "$work/tls.key" "$work/port" 2>"$work/server.log" <<'EOF' &
import functools, http.server, ssl, sys
www, cert, key, port_file = sys.argv[1:]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=www)
class Quiet(http.server.ThreadingHTTPServer):
    daemon_threads = True
server = Quiet(("127.0.0.1", 0), handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os; os.rename(port_file + ".tmp", port_file)
server.serve_forever()
EOF
server_pid=$!
for _ in $(seq 100); do
    [[ -s "$work/port" ]] && break
    kill -0 "$server_pid" 2>/dev/null || fail "the https server exited at start"
    sleep 0.1
done
[[ -s "$work/port" ]] || fail "the https server did not start within 10 s"
base="https://127.0.0.1:$(cat "$work/port")"

# The three descriptions the e2e serves in turn (as latest.json).
describe() { # describe FILE SIGNATURE OUT
    node -e '
const [version, url, signature, out] = process.argv.slice(1);
require("fs").writeFileSync(out, JSON.stringify({
  version,
  notes: "Faster start.\nSources open where they are quoted.",
  pub_date: "2026-12-07T08:00:00Z",
  platforms: { "linux-x86_64-deb": { url, signature } },
}));' "$next" "$base/$(basename "$1")" "$2" "$3"
}
describe "$other" "$other_sig" "$work/other.json"
describe "$altered" "$genuine_sig" "$work/altered.json"
describe "$relabelled" "$relabelled_sig" "$work/relabelled.json"
describe "$newer" "$genuine_sig" "$work/genuine.json"

data="$work/data"
mkdir -p "$data"
echo "update: the installed app ($current) is offered $next at $base"
HEARTH_E2E_DATA_DIR="$data" HEARTH_UPDATE_URL="$base/latest.json" SSL_CERT_FILE="$work/tls.pem" \
    HEARTH_UPDATE_WWW="$www" HEARTH_UPDATE_DESCRIPTIONS="$work" HEARTH_UPDATE_NEXT="$next" \
    HEARTH_UPDATE_PACKAGE="$package" \
    HEARTH_E2E_TESTS=tests/package/update.e2e.mjs tests/e2e/run.sh /usr/bin/hearth-app
installed="$(dpkg-query -W -f='${Version}' "$package")"
[[ "$installed" == "$next" ]] || fail "after the update the package is at $installed, not $next"
echo "update: ok ($package $current -> $next)"
