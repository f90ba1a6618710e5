//! Landlock, applied by the launcher to itself before it runs the command
//! (it survives `exec` and binds every child).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

/// The Landlock levels that change what can be enforced, highest first
/// (7 and 8 add logging and thread flags, nothing this sandbox uses).
const LEVELS: [(u8, ABI); 7] = [
    (9, ABI::V9),
    (6, ABI::V6),
    (5, ABI::V5),
    (4, ABI::V4),
    (3, ABI::V3),
    (2, ABI::V2),
    (1, ABI::V1),
];

/// A ruleset handling everything level `n` adds: file rights, TCP from 4,
/// scopes from 6 (levels 4 and 6 add no file right, so a probe of file
/// rights alone would take 3 for 4 and 5 for 6).
fn ruleset(n: u8, abi: ABI, tcp: bool) -> Result<Ruleset, RulesetError> {
    let mut r = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))?;
    if tcp && n >= 4 {
        r = r.handle_access(AccessNet::from_all(abi))?;
    }
    if n >= 6 {
        r = r.scope(Scope::from_all(abi))?;
    }
    Ok(r)
}

/// The highest level this kernel enforces in full (0: no Landlock).
pub(super) fn level() -> (u8, Option<ABI>) {
    LEVELS
        .iter()
        .find(|(n, abi)| ruleset(*n, *abi, true).and_then(Ruleset::create).is_ok())
        .map_or((0, None), |(n, abi)| (*n, Some(*abi)))
}

/// Restrict this process: read and run anything, write (and, from level 9,
/// connect to sockets) only beneath the workspace and the temp folder (and
/// to `/dev/null` and its kind); from level 4 no TCP when `deny_tcp`; from level 6 no signals to
/// and no abstract sockets of processes outside the sandbox. Every part the
/// level names is required: a partial result is an error. Returns the
/// level (0: none, nothing done). `read_only`: nothing is writable but
/// those devices — not the workspace, and not the temp folder either (on
/// the host it may hold the workspace; inside bubblewrap `/tmp` is private
/// and bubblewrap mounts the workspace read-only).
/// `protected`: paths inside the workspace that must stay as they are
/// (`runs_later`): the workspace is then granted around them.
pub(super) fn landlock(
    workspace: &Path,
    deny_tcp: bool,
    read_only: bool,
    protected: &[PathBuf],
) -> Result<u8, RulesetError> {
    let (n, Some(abi)) = level() else {
        return Ok(0);
    };
    let writable: Vec<PathBuf> = if read_only {
        Vec::new()
    } else {
        let mut w = Vec::new();
        writable_around(workspace, protected, &mut w);
        w.push(std::env::temp_dir());
        w
    };
    // Of /dev only the harmless devices: not the terminal (input could be
    // faked into Hearth's own prompt), not /dev/shm (shared with every
    // program).
    let devices = [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
    ];
    // TCP handled with no rule allowing any port: every bind and connect
    // is denied.
    let status = ruleset(n, abi, deny_tcp)?
        .create()?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))?
        .add_rules(path_beneath_rules(devices, AccessFs::from_all(abi)))?
        .restrict_self()?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(n),
        // HardRequirement makes this unreachable; were it reached, say
        // nothing is enforced rather than claim a level.
        RulesetStatus::PartiallyEnforced | RulesetStatus::NotEnforced => Ok(0),
    }
}

/// What a command may write in `dir` when `protected` paths inside it must
/// stay as they are, into `out`. Landlock grants a right on a folder for
/// everything beneath it and cannot take it back lower down, so a folder
/// that holds a protected path is not granted itself: each of its entries
/// is, the same way, except the protected ones. Such a folder's own list
/// of entries cannot change (nothing made, removed or renamed at its
/// level: a protected `.git` cannot be renamed away and replaced), while
/// everything in its other entries can. Links are not followed (one could
/// lead outside). `dir` with nothing protected inside is granted whole.
pub(super) fn writable_around(dir: &Path, protected: &[PathBuf], out: &mut Vec<PathBuf>) {
    if !protected.iter().any(|p| p.starts_with(dir) && p != dir) {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let link = entry.file_type().is_ok_and(|t| t.is_symlink());
        if link || protected.contains(&path) {
            continue;
        }
        writable_around(&path, protected, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_is_granted_around_what_must_stay() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path();
        for d in [".git/hooks", "src", ".husky/_", ".husky/own"] {
            std::fs::create_dir_all(ws.join(d)).unwrap();
        }
        std::fs::write(ws.join("README.md"), "r").unwrap();
        std::os::unix::fs::symlink("/etc", ws.join("etc-link")).unwrap();
        let mut got = Vec::new();
        writable_around(ws, &[ws.join(".git"), ws.join(".husky/_")], &mut got);
        got.sort();
        let want: Vec<PathBuf> = [".husky/own", "README.md", "src"]
            .iter()
            .map(|p| ws.join(p))
            .collect();
        assert_eq!(got, want);
        let mut whole = Vec::new();
        writable_around(ws, &[], &mut whole);
        assert_eq!(whole, vec![ws.to_path_buf()]);
    }
}
