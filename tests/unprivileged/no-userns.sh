#!/usr/bin/env bash
# Run a command as USER where no user namespace can be created — what a
# desktop user meets on Ubuntu 23.10 and later, whose AppArmor policy keeps
# programs (bubblewrap among them) from creating one. Simulated without
# touching the machine's own settings: a user namespace of the test's,
# mapping root and USER, whose `user.max_user_namespaces` is set to 0
# before the command runs in it as USER. Must be run as root.
#
#   tests/unprivileged/no-userns.sh USER COMMAND [ARG...]
set -euo pipefail

[[ "$(id -u)" == 0 ]] || { echo "no-userns: must run as root (it writes the namespace's uid map)" >&2; exit 1; }
user="$1"
shift
uid="$(id -u "$user")"
gid="$(id -g "$user")"
sync="$(mktemp -d)"
trap 'rm -rf "$sync"' EXIT
chmod 755 "$sync"
mkfifo -m 666 "$sync/ready" "$sync/go"

# The child enters a new user namespace, says so, and waits for its map;
# then (a new exec: capabilities come with the mapped root) it forbids
# further user namespaces and becomes USER.
unshare --user -- bash -c '
    sync=$1 uid=$2 gid=$3
    shift 3
    echo > "$sync/ready"
    read -r _ < "$sync/go"
    exec bash -c "echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --reuid=$uid --regid=$gid --clear-groups -- \"\$@\"" _ "$@"
' _ "$sync" "$uid" "$gid" "$@" &
child=$!
read -r _ < "$sync/ready"
# One write per map: the kernel takes a map in a single write.
python3 -c 'import os, sys
for path, text in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    fd = os.open(path, os.O_WRONLY)
    os.write(fd, text.encode())
    os.close(fd)' \
    "/proc/$child/uid_map" "$(printf '0 0 1\n%s %s 1\n' "$uid" "$uid")" \
    "/proc/$child/gid_map" "$(printf '0 0 1\n%s %s 1\n' "$gid" "$gid")"
echo go > "$sync/go"
wait "$child"
