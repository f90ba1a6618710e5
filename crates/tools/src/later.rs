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
    if under(".ssh") && matches!(name, "config" | "authorized_keys" | "rc" | "environment") {
        return Some(
            "ssh runs the commands it names (ProxyCommand, a key's command=) or lets in the keys it lists",
        );
    }
    if within(&parts, &[".config", "autostart"]) {
        return Some("your desktop starts it when you log in");
    }
    if within(&parts, &[".config", "systemd"]) || within(&parts, &[".local", "share", "systemd"]) {
        return Some("systemd starts the services it names for your account");
    }
    if within(&parts, &[".local", "bin"]) || under(".profile.d") {
        return Some(
            "your shell runs it, or finds it first on PATH, instead of the program you meant",
        );
    }
    if within(&parts, &[".local", "share", "hearth"]) || within(&parts, &[".config", "hearth"]) {
        return Some(
            "Hearth reads its saved MCP servers, hooks and settings from here and starts them",
        );
    }
    if under("skills") && name == "skill.md" {
        return Some(
            "Hearth puts a skill's description into every request as a standing instruction",
        );
    }
    if under(".idea") {
        return Some(
            "JetBrains IDEs run the tools and run configurations it names when you open the project",
        );
    }
    Some(match name {
        ".envrc" => "direnv runs it when you enter the folder",
        "makefile" | "gnumakefile" | "justfile" => "make or just runs it when you build",
        "package.json" => "npm runs its scripts when you install or run the project",
        "build.rs" => "cargo runs it on your next build",
        "setup.py" | "conftest.py" => "pip or pytest runs it",
        ".pre-commit-config.yaml" => "pre-commit runs what it names on your next commit",
        ".bashrc" | ".bash_profile" | ".bash_login" | ".profile" | ".zshrc" | ".zprofile"
        | ".zshenv" | ".bash_logout" | ".xprofile" | ".xsessionrc" => {
            "your shell or desktop session runs it when it starts"
        }
        ".gitconfig" => {
            "git runs the commands and hooks it names (core.pager, aliases, core.hooksPath)"
        }
        "pyproject.toml" | "tox.ini" | "noxfile.py" | "setup.cfg" => {
            "pip, tox or nox runs the build steps and commands it names"
        }
        ".npmrc" | ".yarnrc" | ".yarnrc.yml" => {
            "npm or yarn runs the scripts and programs it names"
        }
        "mise.toml" | ".mise.toml" | ".tool-versions" => {
            "mise runs the tasks and hooks it names when you enter the folder"
        }
        "cmakelists.txt" => "cmake runs it when you configure the build",
        "rakefile" => "rake runs it when you build",
        _ => return None,
    })
}

/// Whether `seq` appears, in order and adjacent, among `parts`' folders.
fn within(parts: &[String], seq: &[&str]) -> bool {
    let folders = &parts[..parts.len().saturating_sub(1)];
    folders
        .windows(seq.len())
        .any(|w| w.iter().zip(seq).all(|(a, b)| a == b))
}

/// In a workspace that is the user's home, a file under a top-level dot
/// folder (or a top-level dotfile) is some program's settings, read when
/// it starts: treated as running later even where no rule above names it.
fn home_settings(root: &Path, rel: &Path) -> Option<&'static str> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a)
            .ok()
            .is_some_and(|a| std::fs::canonicalize(b).ok() == Some(a))
    };
    let first = rel.components().next()?;
    let dotted = matches!(first, Component::Normal(s) if s.to_string_lossy().starts_with('.'));
    (dotted && same(root, &home)).then_some(
        "in your home, files whose path starts with a dot are programs' settings, read (and often run) when they start",
    )
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
    let runs = runner(landed_rel)
        .or_else(|| runner(rel))
        .or_else(|| home_settings(&real_root, landed_rel));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The files security review N14 found missing are named, each with
    /// what runs it; ordinary files are not.
    #[test]
    fn what_runs_later_is_named() {
        for path in [
            ".git/hooks/pre-commit",
            ".gitconfig",
            ".ssh/config",
            ".ssh/authorized_keys",
            ".config/autostart/x.desktop",
            ".config/systemd/user/x.service",
            ".local/bin/git",
            ".profile.d/x.sh",
            "pyproject.toml",
            "tox.ini",
            "noxfile.py",
            ".npmrc",
            "mise.toml",
            ".mise.toml",
            "CMakeLists.txt",
            "Rakefile",
            ".idea/workspace.xml",
            ".local/share/hearth/hearth.sqlite",
            ".config/hearth/settings.json",
            "skills/tidy/SKILL.md",
        ] {
            assert!(runner(Path::new(path)).is_some(), "{path} was not named");
        }
        for path in [
            "src/main.rs",
            "notes/ssh.md",
            "bin/tool",
            "config/hearth.txt",
            "SKILL.md",
        ] {
            assert_eq!(runner(Path::new(path)), None, "{path}");
        }
    }

    /// A home workspace: any dot path counts; elsewhere it does not.
    #[test]
    fn a_dot_path_in_a_home_workspace_runs_later() {
        let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
            panic!("HOME is set where the tests run");
        };
        let rel = Path::new(".someapp/startup.conf");
        assert_eq!(runner(rel), None);
        assert!(warning(&home, rel).is_some_and(|w| w.contains("programs' settings")));
        let other = tempfile::tempdir().unwrap();
        assert_eq!(warning(other.path(), rel), None);
    }
}
