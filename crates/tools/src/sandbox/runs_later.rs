//! What in a workspace runs code later, outside any sandbox, and so must
//! stay as it is while a sandboxed command runs (security review N1). A
//! list of a few fixed paths was walked around: a command wrote
//! `.git/commondir` (git then took its config and hooks from a folder the
//! command made), or renamed `.git` and made a new one with hooks. So what
//! is protected is what git runs from, found the way git finds it:
//!
//! - `.git` as a whole, a folder or a worktree's file (as a mount point
//!   under bubblewrap it cannot be renamed either);
//! - the git folder a `.git` file names and the common folder a
//!   `commondir` names, when they are inside the workspace;
//! - the hooks folder `core.hooksPath` names (husky's `.husky/_`) and the
//!   files `include.path` names, when inside;
//! - the same in each repository nested in the workspace (`sub/.git`, a
//!   submodule, a vendored clone), found down to [`NESTED_DEPTH`] folders
//!   deep (dependency and build folders are not searched);
//! - what the caller adds (Hearth's data and skills folders), when inside.
//!
//! Bubblewrap binds each read-only; Landlock, which cannot take a right
//! back beneath a folder it grants, grants the workspace around them
//! (`restrict::writable_around`). What neither can stop (a folder above a
//! protected one renamed under bubblewrap, a repository made where there
//! was none) is found after the command by [`Snapshot`], and the result
//! says so.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The most of a git config file that is read (a real one is a few KB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// `path` without `.` and `..` components (not resolved on disk: it may
/// not exist).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A regular file's text, read without blocking on a FIFO and cut at
/// `MAX_CONFIG_BYTES`; `None` for anything else.
fn small_text(path: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `value` as git reads a path: `~/` is the home folder, a relative path
/// is relative to `base`.
fn git_path(value: &str, base: &Path) -> Option<PathBuf> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if let Some(rest) = value.strip_prefix("~/") {
        return std::env::var_os("HOME").map(|h| normal(&Path::new(&h).join(rest)));
    }
    Some(normal(&base.join(value)))
}

/// The values of `core.hooksPath` and of `include.path` /
/// `includeIf.<cond>.path` in a git config's text: (hooks paths, include
/// paths). A plain reading of the format (sections, `key = value`, quotes,
/// comments), enough for what a user writes; the file itself is protected,
/// so a command cannot write one to fool it.
fn config_paths(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut hooks, mut includes) = (Vec::new(), Vec::new());
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.split([']', ' ', '"', '.']).next().unwrap_or_default();
            section = name.to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let mut value = value.trim();
        if let Some(quoted) = value.strip_prefix('"') {
            value = quoted.split('"').next().unwrap_or_default();
        } else {
            value = value.split(['#', ';']).next().unwrap_or_default().trim();
        }
        match (section.as_str(), key.as_str()) {
            ("core", "hookspath") => hooks.push(value.to_owned()),
            ("include" | "includeif", "path") => includes.push(value.to_owned()),
            _ => {}
        }
    }
    (hooks, includes)
}

/// Folders below the workspace not searched for nested repositories:
/// dependencies and build outputs, large and never a user's repository.
const NOT_SEARCHED: [&str; 6] = [
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".git",
];

/// How deep below the workspace nested repositories are looked for
/// (`a/b/c/d/.git` is found), and how many folders at most are read doing
/// so: the search runs before and after each command.
const NESTED_DEPTH: usize = 4;
const NESTED_FOLDERS: usize = 4_000;

/// The folders strictly inside `workspace` that hold a `.git` (a nested
/// repository, a submodule, a vendored clone), breadth first, links not
/// followed, within [`NESTED_DEPTH`] and [`NESTED_FOLDERS`].
fn nested_repositories(workspace: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut level = vec![workspace.to_path_buf()];
    let mut read = 0;
    for _ in 0..NESTED_DEPTH {
        let mut next = Vec::new();
        for dir in level {
            if read >= NESTED_FOLDERS {
                return found;
            }
            read += 1;
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                let name = entry.file_name();
                if !is_dir || NOT_SEARCHED.iter().any(|n| name == *n) {
                    continue;
                }
                let path = entry.path();
                if path.join(".git").symlink_metadata().is_ok() {
                    found.push(path.clone());
                }
                next.push(path);
            }
        }
        level = next;
    }
    found
}

/// The paths inside `workspace` (a real path) that a sandboxed command
/// must not change: what git runs from there and in the repositories
/// nested in it, and those of `extra` that are inside. Only paths strictly
/// inside the workspace; none repeated.
pub fn protected(workspace: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for root in std::iter::once(workspace.to_path_buf()).chain(nested_repositories(workspace)) {
        repository(workspace, &root, &mut out);
    }
    for p in extra {
        let p = normal(p);
        if p.starts_with(workspace) && p != workspace && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// What git runs from in the repository at `root` (the workspace or a
/// folder in it), added to `out` when inside `workspace`.
fn repository(workspace: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let inside = |p: &Path| p.starts_with(workspace) && p != workspace;
    let add = |p: PathBuf, out: &mut Vec<PathBuf>| {
        if inside(&p) && !out.contains(&p) {
            out.push(p);
        }
    };
    let dot_git = root.join(".git");
    add(dot_git.clone(), out);
    // A worktree's or a submodule's `.git` file names the git folder.
    let mut git_dirs = vec![dot_git.clone()];
    // A `.git` that is a link: what it leads to, when that is inside.
    if dot_git
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        && let Ok(real) = std::fs::canonicalize(&dot_git)
    {
        add(real.clone(), out);
        git_dirs.push(real);
    }
    if let Some(text) = small_text(&dot_git)
        && let Some(dir) = text.lines().find_map(|l| l.trim().strip_prefix("gitdir:"))
        && let Some(dir) = git_path(dir, root)
    {
        add(dir.clone(), out);
        git_dirs.push(dir);
    }
    // A linked worktree's `commondir` names where config and hooks are.
    for dir in git_dirs.clone() {
        if let Some(text) = small_text(&dir.join("commondir"))
            && let Some(common) = git_path(text.lines().next().unwrap_or_default(), &dir)
        {
            add(common.clone(), out);
            git_dirs.push(common);
        }
    }
    // Configs, and the files they include (one level: an include inside
    // the workspace is protected itself, so what it says cannot change).
    let mut configs: Vec<PathBuf> = git_dirs.iter().map(|d| d.join("config")).collect();
    let mut read = 0;
    while read < configs.len() && read < 16 {
        let config = configs[read].clone();
        read += 1;
        let Some(text) = small_text(&config) else {
            continue;
        };
        let (hooks, includes) = config_paths(&text);
        for h in hooks {
            // Relative to the repository's top, as git reads it.
            if let Some(p) = git_path(&h, root) {
                add(p, out);
            }
        }
        let base = config.parent().unwrap_or(root).to_path_buf();
        for i in includes {
            if let Some(p) = git_path(&i, &base) {
                add(p.clone(), out);
                configs.push(p);
            }
        }
    }
}

/// Identity of what is at a path (device and inode), or `None` when
/// nothing is.
fn identity(path: &Path) -> Option<(u64, u64)> {
    path.symlink_metadata().ok().map(|m| (m.dev(), m.ino()))
}

/// What the protected paths of a workspace were before a command, to tell
/// after it whether one was replaced, removed or made.
#[derive(Debug)]
pub struct Snapshot {
    workspace: PathBuf,
    seen: Vec<(PathBuf, Option<(u64, u64)>)>,
}

impl Snapshot {
    /// The protected paths of `workspace` (with `extra`), as they are now.
    pub fn take(workspace: &Path, extra: &[PathBuf]) -> Self {
        let seen = protected(workspace, extra)
            .into_iter()
            .map(|p| {
                let id = identity(&p);
                (p, id)
            })
            .collect();
        Self {
            workspace: workspace.to_path_buf(),
            seen,
        }
    }

    /// The protected paths a command replaced, removed or made (a `.git`
    /// where there was none counts: its hooks are the command's), relative
    /// to the workspace; empty when none.
    pub fn changed(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .seen
            .iter()
            .filter(|(p, id)| identity(p) != *id)
            .map(|(p, _)| p.strip_prefix(&self.workspace).unwrap_or(p).to_path_buf())
            .collect();
        // What git would run from now that it did not before.
        for p in protected(&self.workspace, &[]) {
            if !self.seen.iter().any(|(q, _)| *q == p) && identity(&p).is_some() {
                out.push(p.strip_prefix(&self.workspace).unwrap_or(&p).to_path_buf());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_and_includes_are_read_from_a_config() {
        let text = "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky/_ # husky\n\
                    [include]\n\tpath = \"shared.gitconfig\"\n\
                    [includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.gitconfig\n\
                    [user]\n\tpath = not-a-config\n";
        let (hooks, includes) = config_paths(text);
        assert_eq!(hooks, vec![".husky/_"]);
        assert_eq!(includes, vec!["shared.gitconfig", "~/work.gitconfig"]);
    }

    #[test]
    fn what_git_runs_from_is_found_the_way_git_finds_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(tmp.path()).unwrap();
        // A linked worktree: `.git` is a file naming a git folder inside
        // the workspace, whose commondir names another, whose config names
        // a hooks folder and includes a file.
        std::fs::write(ws.join(".git"), "gitdir: meta/wt\n").unwrap();
        std::fs::create_dir_all(ws.join("meta/wt")).unwrap();
        std::fs::write(ws.join("meta/wt/commondir"), "../main\n").unwrap();
        std::fs::create_dir_all(ws.join("meta/main")).unwrap();
        std::fs::write(
            ws.join("meta/main/config"),
            "[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = ../../team.cfg\n",
        )
        .unwrap();
        std::fs::write(ws.join("team.cfg"), "[core]\n\thooksPath = /etc/hooks\n").unwrap();
        let got = protected(&ws, &[ws.join("data/hearth"), PathBuf::from("/elsewhere")]);
        let rel: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(&ws).unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            rel,
            [
                ".git",
                "meta/wt",
                "meta/main",
                "tools/hooks",
                "team.cfg",
                "data/hearth"
            ]
        );
    }

    /// A repository nested in the workspace is protected as the top one
    /// is (its `.git` whole and the hooks folder its config names); one in
    /// a dependency folder or deeper than the search goes is not read.
    #[test]
    fn nested_repositories_are_protected_too() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(ws.join("vendor/lib/.git")).unwrap();
        std::fs::write(
            ws.join("vendor/lib/.git/config"),
            "[core]\n\thooksPath = githooks\n",
        )
        .unwrap();
        std::fs::create_dir_all(ws.join("a/b/c/d/.git")).unwrap();
        std::fs::create_dir_all(ws.join("a/b/c/d/e/.git")).unwrap();
        std::fs::create_dir_all(ws.join("node_modules/pkg/.git")).unwrap();
        let got = protected(&ws, &[]);
        let rel: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(&ws).unwrap().to_str().unwrap().to_owned())
            .collect();
        for want in ["a/b/c/d/.git", "vendor/lib/.git", "vendor/lib/githooks"] {
            assert!(rel.contains(&want.to_owned()), "{want} missing: {rel:?}");
        }
        for not in ["a/b/c/d/e/.git", "node_modules/pkg/.git"] {
            assert!(!rel.contains(&not.to_owned()), "{not} searched: {rel:?}");
        }
        // A nested repository made by a command is reported after it.
        let before = Snapshot::take(&ws, &[]);
        std::fs::create_dir_all(ws.join("tools/new/.git/hooks")).unwrap();
        assert_eq!(before.changed(), [PathBuf::from("tools/new/.git")]);
    }

    #[test]
    fn a_replaced_or_new_git_folder_is_seen_after_the_command() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(tmp.path()).unwrap();
        let before = Snapshot::take(&ws, &[]);
        assert!(before.changed().is_empty());
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        assert_eq!(before.changed(), [PathBuf::from(".git")]);
        let again = Snapshot::take(&ws, &[]);
        std::fs::rename(ws.join(".git"), ws.join(".git-old")).unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        assert_eq!(again.changed(), [PathBuf::from(".git")]);
    }
}
