//! Files that run code later. A write confined to the workspace can still
//! plant a git hook, an `.envrc` or a Makefile that runs — outside any
//! sandbox, with the user's full rights — the next time they commit, enter
//! the folder or build. Such a write, and one through a symlinked folder
//! (where the path shown is not where the file lands), gets its own louder
//! question naming the resolved path, and no pre-approval covers it.

use std::path::{Component, Path, PathBuf};

/// What runs a file at `rel` (a path relative to the workspace, after
/// symlinks), in words; `None` when nothing does.
fn runner(rel: &Path) -> Option<&'static str> {
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    let name = parts.last()?.as_str();
    let under = |dir: &str| parts[..parts.len() - 1].iter().any(|p| p == dir);
    if under(".git") || name == ".git" {
        return Some(
            "git runs hooks and commands its config names (core.fsmonitor, core.hooksPath) on your next git command",
        );
    }
    if under(".husky") {
        return Some("git runs husky's hooks on your next commit");
    }
    if under(".vscode") && matches!(name, "tasks.json" | "settings.json" | "launch.json") {
        return Some("VS Code runs the tasks and programs it names when you open the folder");
    }
    if under(".github") && under("workflows") {
        return Some("CI runs its workflows when you push");
    }
    if under(".cargo") && matches!(name, "config" | "config.toml") {
        return Some("cargo runs the runners and linkers it names on your next build");
    }
    Some(match name {
        ".envrc" => "direnv runs it when you enter the folder",
        "makefile" | "gnumakefile" | "justfile" => "make or just runs it when you build",
        "package.json" => "npm runs its scripts when you install or run the project",
        "build.rs" => "cargo runs it on your next build",
        "setup.py" | "conftest.py" => "pip or pytest runs it",
        ".pre-commit-config.yaml" => "pre-commit runs what it names on your next commit",
        ".bashrc" | ".bash_profile" | ".bash_login" | ".profile" | ".zshrc" | ".zprofile"
        | ".zshenv" => "your shell runs it when it starts",
        _ => return None,
    })
}

/// Where `rel` lands once the symlinks among its existing folders are
/// followed, and the first such folder (None: no symlink on the way).
fn resolve(root: &Path, rel: &Path) -> (PathBuf, Option<PathBuf>) {
    let mut so_far = PathBuf::new();
    let mut link = None;
    let parents: Vec<Component<'_>> = rel
        .parent()
        .map_or_else(Vec::new, |p| p.components().collect());
    for c in parents {
        so_far.push(c);
        if link.is_none()
            && std::fs::symlink_metadata(root.join(&so_far))
                .is_ok_and(|m| m.file_type().is_symlink())
        {
            link = Some(so_far.clone());
        }
    }
    let landed = match (&link, rel.parent(), rel.file_name()) {
        (Some(_), Some(parent), Some(name)) => std::fs::canonicalize(root.join(parent))
            .map_or_else(|_| root.join(rel), |p| p.join(name)),
        _ => root.join(rel),
    };
    (landed, link)
}

/// The louder warning for a write of `rel` in the workspace `root`.
pub(crate) fn warning(root: &Path, rel: &Path) -> Option<String> {
    let (landed, link) = resolve(root, rel);
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let landed_rel = landed.strip_prefix(&real_root).unwrap_or(rel);
    let runs = runner(landed_rel).or_else(|| runner(rel));
    let mut parts = Vec::new();
    if let Some(runs) = runs {
        parts.push(format!(
            "this file runs code later, outside the sandbox and without asking: {runs}"
        ));
    }
    if let Some(link) = link {
        parts.push(format!(
            "the folder `{}` is a symbolic link, so the file is not where its path says",
            link.display()
        ));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "{}. It is written at {}",
        parts.join("; "),
        landed.display()
    ))
}
