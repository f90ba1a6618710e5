#!/usr/bin/env bash
# The package's AppArmor scripts (packaging/postinst.sh, prerm.sh), taken
# out of the release .deb and run as dpkg and rpm run them, in a mount
# namespace of the test's own where the machine's AppArmor is played:
#   - a kernel that mediates user namespaces (Ubuntu 23.10 and later: the
#     `userns_create` feature): the profile goes to /etc/apparmor.d and
#     apparmor_parser loads it; an upgrade keeps it (deb `upgrade`, rpm
#     `1`); removing the package (deb `remove`, rpm `0`) unloads and
#     deletes it;
#   - a parser that refuses the profile: said, and the install goes on;
#   - a kernel that does not (Debian 12, this machine): nothing is written.
# apparmor_parser is a stand-in that writes down what it was asked; whether
# the real one accepts the profile needs AppArmor 4 (not in Debian 12).
# Must be run as root (it mounts). Called by tests/package/run.sh.
#
#   tests/package/apparmor.sh PATH_TO_DEB
set -euo pipefail

fail() {
    echo "apparmor: $*" >&2
    exit 1
}
[[ "$(id -u)" == 0 ]] || fail "must run as root (it mounts in a namespace of its own)"
deb="$1"
work="$(mktemp -d -t hearth-apparmor.XXXXXX)"
# The two folders the namespace mounts over must exist; made here when
# missing (empty, and taken away at the end).
made=()
for d in /etc/apparmor.d /usr/share/hearth; do
    [[ -d "$d" ]] || { mkdir "$d"; made+=("$d"); }
done
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
    rm -rf "$work"
    for d in "${made[@]}"; do rmdir "$d" 2>/dev/null || true; done
}
trap cleanup EXIT
dpkg-deb -e "$deb" "$work/control"
dpkg-deb -x "$deb" "$work/root"
for f in postinst prerm; do
    [[ -x "$work/control/$f" ]] || fail "the package has no $f script"
done
[[ -s "$work/root/usr/share/hearth/apparmor/hearth-app" ]] || fail "the package lacks /usr/share/hearth/apparmor/hearth-app"
grep -q '^profile hearth-app /usr/bin/hearth-app flags=(unconfined) {$' "$work/root/usr/share/hearth/apparmor/hearth-app" ||
    fail "the profile does not attach to /usr/bin/hearth-app alone"
grep -q '^  userns,$' "$work/root/usr/share/hearth/apparmor/hearth-app" || fail "the profile does not allow userns"

mkdir -p "$work/bin"
cat >"$work/bin/apparmor_parser" <<'EOF'
#!/bin/sh
echo "$*" >>"$PARSER_LOG"
[ -z "$PARSER_REFUSES" ] || { echo "AppArmor parser error: unknown rule" >&2; exit 1; }
EOF
chmod +x "$work/bin/apparmor_parser"

# play MEDIATED REFUSES: runs the scripts in a mount namespace where
# /sys/kernel/security and /proc/sys/kernel show AppArmor as MEDIATED says,
# /etc/apparmor.d starts empty and /usr/share/hearth is the package's.
# Prints what happened, one line per step.
play() {
    PARSER_LOG="$work/parser.log" PARSER_REFUSES="$2" PATH="$work/bin:$PATH" \
        unshare -m --propagation private bash -c '
set -e
work=$1 mediated=$2
mount -t tmpfs none /sys/kernel/security
mount -t tmpfs none /proc/sys/kernel
mkdir -p /sys/kernel/security/apparmor/features/namespaces
[ "$mediated" = yes ] && touch /sys/kernel/security/apparmor/features/namespaces/userns_create
mount -t tmpfs none /etc/apparmor.d
mount --bind "$work/root/usr/share/hearth" /usr/share/hearth
: >"$PARSER_LOG"
state() { # what /etc/apparmor.d holds, and what the parser was asked
    printf "%s: %s | %s\n" "$1" "$(ls /etc/apparmor.d | tr "\n" " ")" "$(tr "\n" ";" <"$PARSER_LOG")"
    : >"$PARSER_LOG"
}
"$work/control/postinst" configure 2>"$work/postinst.err"; state install
cmp -s /etc/apparmor.d/hearth-app "$work/root/usr/share/hearth/apparmor/hearth-app" && echo "same profile" || true
"$work/control/prerm" upgrade 0.1.1; state "deb upgrade"
"$work/control/prerm" 1; state "rpm upgrade"
"$work/control/prerm" remove; state "deb remove"
"$work/control/postinst" configure 2>/dev/null
"$work/control/prerm" 0; state "rpm erase"
' _ "$work" "$1"
}

got="$(play yes "")"
want="install: hearth-app  | -r -T -W /etc/apparmor.d/hearth-app;
same profile
deb upgrade: hearth-app  | 
rpm upgrade: hearth-app  | 
deb remove:  | -R /etc/apparmor.d/hearth-app;
rpm erase:  | -r -T -W /etc/apparmor.d/hearth-app;-R /etc/apparmor.d/hearth-app;"
[[ "$got" == "$want" ]] || fail "where AppArmor mediates user namespaces:
$got
expected:
$want"
[[ ! -s "$work/postinst.err" ]] || fail "postinst said: $(cat "$work/postinst.err")"

got="$(play yes refuses)"
[[ "$(head -n 1 <<<"$got")" == "install: hearth-app  | -r -T -W /etc/apparmor.d/hearth-app;" ]] ||
    fail "with a parser that refuses the profile, the install did not go on: $got"
grep -q "could not load the AppArmor profile" "$work/postinst.err" || fail "a profile that did not load was not said"

got="$(play no "")"
want="install:  | 
deb upgrade:  | 
rpm upgrade:  | 
deb remove:  | 
rpm erase:  | "
[[ "$got" == "$want" ]] || fail "where AppArmor does not mediate user namespaces:
$got
expected:
$want"
echo "apparmor: ok (the profile installed and loaded only where user namespaces are mediated, kept on upgrade, removed with the package)"
