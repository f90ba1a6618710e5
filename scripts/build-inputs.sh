# shellcheck shell=bash
# The app's build-script inputs, made fresh by their content in a fresh
# clone. Sourced by scripts/test.sh in CI (docs/adr/0018-content-hash-freshness.md).
#
# Cargo's content-hash freshness (scripts/build-cache.sh) covers what rustc
# reads, not the files a build script names with `rerun-if-changed`, which
# cargo still judges by their times. The app's build script (tauri-build)
# names tauri.conf.json, permissions/ and the voice resources; in a fresh
# clone they are all new, so it ran again on every run and the app crate,
# a third of our compile, was compiled again with it, debug and release.
#
# So, before the build: those files get one old time (2000-01-01), which
# by times alone would hide a change, and a hash of their paths and
# contents goes into HEARTH_APP_BUILD_INPUTS, which the build script names
# with `rerun-if-env-changed` (src-tauri/build.rs): a change of any of
# them changes the hash and runs it again. Only files inside this clone
# are touched, and only those the hash covers. The list is what the build
# script named in its last run (its `output` in the target directory); a
# file it names for the first time keeps its time and makes it run once.
app_build_inputs() {
    local root="$1" out p rel
    local -a listed=() paths=()
    for out in "$CARGO_TARGET_DIR"/{debug,release}/build/hearth-app-*/output; do
        [[ -f "$out" ]] && mapfile -t -O "${#listed[@]}" listed < <(sed -n 's/^cargo:rerun-if-changed=//p' "$out")
    done
    for p in "${listed[@]}"; do
        case "$p" in
        "$root"/*) rel="${p#"$root"/}" ;;
        /*) continue ;; # another clone's file: cargo checks it there
        *) rel="$p" ;;
        esac
        [[ -e "$root/$rel" ]] && paths+=("$rel")
    done
    ((${#paths[@]} > 0)) || return 0
    mapfile -t paths < <(printf '%s\n' "${paths[@]}" | sort -u)
    HEARTH_APP_BUILD_INPUTS="$(cd "$root" && find "${paths[@]}" -type f -print0 | sort -z |
        xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    export HEARTH_APP_BUILD_INPUTS
    (cd "$root" && find "${paths[@]}" -exec touch -h -d @946684800 {} +)
}
