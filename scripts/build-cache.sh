# shellcheck shell=bash
# The machine's one build cache, with freshness by content. Sourced by
# scripts/test.sh; a developer who shares the cache sources it too
# (README, "The build cache"):
#
#   source scripts/build-cache.sh
#
# - One target directory per machine, outside any clone
#   ($HEARTH_CACHE/target, default ~/.cache/hearth/target; an explicit
#   CARGO_TARGET_DIR wins): every clone and every run shares the compiled
#   dependencies, and cargo's lock keeps two builds from writing it at once.
# - Cargo decides whether a crate of ours is fresh by the hashes of its
#   files, not their times (its unstable checksum freshness,
#   docs/adr/0018-content-hash-freshness.md). A fresh clone's files are all
#   new, so by times it recompiled every crate of ours, debug and release,
#   even when nothing had changed; by hashes it recompiles only what a
#   change touches. And two clones that share the cache can no longer take
#   each other's build for their own when one's files are older.
#
# Cargo compiles differently in the two modes, so one target directory must
# be built in one mode: a plain `cargo build` into this directory rebuilds
# everything, and so does the next run of scripts/test.sh after it.
export HEARTH_CACHE="${HEARTH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hearth}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HEARTH_CACHE/target}"
mkdir -p "$CARGO_TARGET_DIR"

# Stable cargo takes an unstable setting only where it is told its channel
# allows them. This variable tells cargo alone; RUSTC_BOOTSTRAP would also
# reach every build script's probe of the compiler, which would then turn
# on nightly code in dependencies (the ADR says more).
export __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS=nightly
export CARGO_UNSTABLE_CHECKSUM_FRESHNESS=true
_hearth_wrapper="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rustc-checksums.sh"
if [[ -n "${RUSTC_WRAPPER:-}" && "$RUSTC_WRAPPER" != */rustc-checksums.sh ]]; then
    export HEARTH_RUSTC_WRAPPER="$RUSTC_WRAPPER"
fi
export RUSTC_WRAPPER="$_hearth_wrapper"
unset _hearth_wrapper
