#!/bin/sh
# After the package is installed or upgraded (deb postinst, rpm %post).
# Where AppArmor mediates user namespaces (Ubuntu 23.10 and later), Hearth's
# profile goes to /etc/apparmor.d and is loaded, so that the shell sandbox
# (bubblewrap) can make its namespaces; elsewhere nothing is done (an older
# AppArmor cannot parse the profile and would report it at every boot).
# A profile that will not load is said, never fatal: the sandbox then falls
# back to Landlock and seccomp and the approval says so.
set -e
src=/usr/share/hearth/apparmor/hearth-app
dst=/etc/apparmor.d/hearth-app
if [ -e /sys/kernel/security/apparmor/features/namespaces/userns_create ] ||
    [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
    mkdir -p /etc/apparmor.d
    cp "$src" "$dst"
    if command -v apparmor_parser >/dev/null 2>&1; then
        apparmor_parser -r -T -W "$dst" ||
            echo "hearth: could not load the AppArmor profile $dst; until it is loaded, Hearth's shell sandbox uses Landlock and seccomp without namespaces" >&2
    fi
fi
exit 0
