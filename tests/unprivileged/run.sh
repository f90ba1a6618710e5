#!/usr/bin/env bash
# The sandbox as a desktop user meets it: not root. Every other test runs as
# whoever runs the suite (root in CI); here, as the unprivileged user
# `scripts/setup.sh --test` creates ($HEARTH_TEST_USER, default
# hearth-test):
#   1. the shell sandbox's attack suite (crates/cli/tests/suite/sandbox.rs),
#      under bubblewrap and under the Landlock fallback: the approval states
#      the mechanism that runs, and every attack is refused; then again
#      where bubblewrap cannot create its user namespace (as under Ubuntu's
#      AppArmor restriction), where it must fall back to Landlock itself;
#   2. a desktop e2e (tests/e2e/sandbox.e2e.mjs): the real app, in a real
#      webview, runs an approved command in its sandbox as this user.
# The user cannot read root's target directory or toolchains, so the
# binaries these need are copied to a folder of theirs first.
#
#   tests/unprivileged/run.sh      (after the test build: scripts/test.sh runs it)
#
# Run as a user who is not root, it runs the same as that user.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
user="${HEARTH_TEST_USER:-hearth-test}"
features=(--features tauri/custom-protocol)

fail() {
    echo "unprivileged: $*" >&2
    exit 1
}

as_user=()
if [[ "$(id -u)" == 0 ]]; then
    id -u "$user" >/dev/null 2>&1 || fail "no user $user; run scripts/setup.sh --test (it creates one)"
    as_user=(runuser -u "$user" --)
    home="$(getent passwd "$user" | cut -d: -f6)"
else
    user="$(id -un)"
    home="$HOME"
fi

# The CLI's test binary, as the test build made it (nothing is compiled:
# the same profile, features and environment as `cargo nextest run`).
suite="$(cargo test --workspace "${features[@]}" --no-run --message-format=json 2>/dev/null |
    jq -r 'select(.reason == "compiler-artifact" and .target.kind == ["test"] and .target.name == "all"
        and (.package_id | test("hearth-cli"))) | .executable' | tail -n 1)"
[[ -x "$suite" ]] || fail "the CLI's test binary was not found (build the tests first)"

stage="$(mktemp -d -t hearth-unprivileged.XXXXXX)"
trap 'rm -rf "$stage"' EXIT
cp "$suite" "$stage/cli-tests"
cp "$target/debug/hearth" "$stage/hearth"
chmod 755 "$stage" "$stage/cli-tests" "$stage/hearth"

echo "unprivileged: as $user (uid $(id -u "$user")): the shell sandbox's attack suite"
rc=0
(cd "$stage" && "${as_user[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" \
    HEARTH_TEST_CLI="$stage/hearth" RUST_BACKTRACE=1 \
    "$stage/cli-tests" sandbox:: --test-threads=2) 2>&1 | tee "$stage/suite.log" || rc=$?
((rc == 0)) || fail "the attack suite failed as $user (exit $rc)"
# A filter that matched nothing would pass: the suite has 14 cases.
ran="$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$stage/suite.log")"
[[ -n "$ran" ]] && ((ran >= 14)) || fail "the attack suite ran ${ran:-no} cases as $user, expected 14 or more"

# 1b. Where bubblewrap cannot create its user namespace (Ubuntu 23.10 and
# later under AppArmor): the same suite, its bubblewrap cases now falling
# back to Landlock by themselves, the question saying so, every attack
# refused. The place is made by tests/unprivileged/no-userns.sh, which
# needs root to write a namespace's uid map; as another user this step
# cannot be made and says so.
if [[ -n "${as_user[*]}" ]]; then
    echo "unprivileged: as $user where no user namespace can be made: the attack suite falls back to Landlock"
    rc=0
    (cd "$stage" && tests_dir="$root/tests/unprivileged" &&
        "$tests_dir/no-userns.sh" "$user" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" \
            HEARTH_TEST_CLI="$stage/hearth" HEARTH_TEST_NO_USERNS=1 RUST_BACKTRACE=1 \
            "$stage/cli-tests" sandbox:: --test-threads=2) 2>&1 | tee "$stage/no-userns.log" || rc=$?
    ((rc == 0)) || fail "the attack suite failed as $user without user namespaces (exit $rc)"
    ran="$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$stage/no-userns.log")"
    [[ -n "$ran" ]] && ((ran >= 14)) || fail "without user namespaces the attack suite ran ${ran:-no} cases, expected 14 or more"
else
    echo "unprivileged: not root, so no place without user namespaces can be made here (tests/unprivileged/no-userns.sh needs root); CI runs it"
fi

echo "unprivileged: as $user: the sandbox in the real app (tests/e2e/sandbox.e2e.mjs)"
# What tests/e2e/run.sh needs, where this user can read it: the e2e files
# and the simulator's start script, node_modules (hard links when the
# filesystem allows), the app, the simulator and tauri-driver.
version="$(cargo metadata --no-deps --format-version 1 | jq -r '.packages[] | select(.name == "hearth-app") | .version')"
mkdir -p "$stage/repo/scripts" "$stage/target/debug" "$stage/bin"
cp -a tests "$stage/repo/tests"
cp -a scripts/sim-start.sh "$stage/repo/scripts/"
cp -a package.json "$stage/repo/"
cp -al node_modules "$stage/repo/node_modules" 2>/dev/null || cp -a node_modules "$stage/repo/node_modules"
cp "$target/debug/hearth-app" "$target/debug/hearth-sim" "$stage/target/debug/"
cp "$(command -v tauri-driver)" "$stage/bin/"
chmod -R a+rX "$stage/target" "$stage/bin"
chmod a+rx "$stage/repo" "$stage/repo/scripts"
# The e2e writes its screenshots beside itself.
[[ -z "${as_user[*]}" ]] || chown -R "$user" "$stage/repo/tests"
"${as_user[@]}" env -i PATH="$stage/bin:/usr/local/bin:/usr/bin:/bin" HOME="$home" USER="$user" \
    CARGO_TARGET_DIR="$stage/target" HEARTH_VERSION="$version" HEARTH_E2E_TESTS=tests/e2e/sandbox.e2e.mjs \
    "$stage/repo/tests/e2e/run.sh" "$stage/target/debug/hearth-app" ||
    fail "the sandbox e2e failed as $user"
echo "unprivileged: ok"
