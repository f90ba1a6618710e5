#!/usr/bin/env bash
# Checks that the clippy wrapper scripts/test.sh builds with
# ($RUSTC_WORKSPACE_WRAPPER, $CLIPPY_ARGS) lints with warnings as errors:
# a throwaway crate with one clippy warning (needless_return, a lint that
# only warns) and one rustc warning (an unused variable) must fail to
# build, naming both as errors. Should clippy's
# wrapper interface change, this fails instead of the lint silently going.
set -euo pipefail
[[ -n "${RUSTC_WORKSPACE_WRAPPER:-}" && -n "${CLIPPY_ARGS:-}" ]] ||
    { echo "clippy-canary: RUSTC_WORKSPACE_WRAPPER and CLIPPY_ARGS are not set" >&2; exit 1; }
dir="$(mktemp -d -t hearth-clippy-canary.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src"
cat >"$dir/Cargo.toml" <<'TOML'
[package]
name = "clippy-canary"
version = "0.0.0"
edition = "2024"
[workspace]
TOML
cat >"$dir/src/main.rs" <<'RS'
fn count() -> usize {
    return std::env::args().count();
}

fn main() {
    let unused = 1;
    println!("{}", count());
}
RS
out=""
if out="$(cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --quiet 2>&1)"; then
    echo "clippy-canary: a crate with a clippy finding and a warning built: the lint is not running" >&2
    exit 1
fi
for want in 'error: unneeded `return` statement' 'error: unused variable' '-D warnings'; do
    grep -qF -- "$want" <<<"$out" || { echo "clippy-canary: the failed build does not mention '$want':" >&2; echo "$out" >&2; exit 1; }
done
echo "clippy-canary: the wrapper lints, and warnings are errors"
