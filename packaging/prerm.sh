#!/bin/sh
# Before the package is removed (deb prerm `remove`, rpm %preun with no
# copy left: `0`). Not on an upgrade: rpm runs the old package's %preun
# after the new one's %post, which has put the profile back already.
case "$1" in
remove | 0)
    dst=/etc/apparmor.d/hearth-app
    if [ -e "$dst" ]; then
        if command -v apparmor_parser >/dev/null 2>&1 && [ -d /sys/kernel/security/apparmor ]; then
            apparmor_parser -R "$dst" 2>/dev/null || true
        fi
        rm -f "$dst"
    fi
    ;;
esac
exit 0
