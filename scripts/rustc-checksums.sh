#!/usr/bin/env bash
# rustc as cargo runs it with content-hash freshness on (scripts/build-cache.sh,
# docs/adr/0018-content-hash-freshness.md). Cargo then asks rustc to write
# each source file's hash into its dep-info with
# `-Z checksum-hash-algorithm=blake3`, a flag stable rustc accepts only with
# RUSTC_BOOTSTRAP=1. It is set here for those compiles alone: a build
# script that probes the compiler (anyhow's, proc-macro2's) runs rustc
# through this wrapper without that flag, so it still sees a stable
# compiler and turns on no nightly code. A wrapper of the user's own
# (sccache, say) is kept in HEARTH_RUSTC_WRAPPER and run inside this one.
# Bash, not sh: Debian's sh (dash) drops from the environment every
# variable whose name is not a shell name, and cargo hands an integration
# test the path of its package's binaries in such names
# (CARGO_BIN_EXE_hearth-reader), which the test then would not compile.
case " $* " in
*" checksum-hash-algorithm="* | *" -Zchecksum-hash-algorithm="*)
    RUSTC_BOOTSTRAP=1
    export RUSTC_BOOTSTRAP
    ;;
esac
if [ -n "${HEARTH_RUSTC_WRAPPER:-}" ]; then
    exec "$HEARTH_RUSTC_WRAPPER" "$@"
fi
exec "$@"
