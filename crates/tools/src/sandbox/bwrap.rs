//! The bubblewrap command line: the namespaces and the file system view a
//! command gets.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the Hearth binary is seen inside the sandbox (bound there, so a
/// binary under `/tmp` or `/run` is not hidden by the private ones).
pub(super) const LAUNCHER_INSIDE: &str = "/run/hearth/launcher";

/// Folders replaced by empty private ones: the temp folders (other
/// programs' sockets and files, ssh-agent's among them) and the runtime
/// folders (D-Bus, systemd, Docker, Wayland and X11 sockets).
fn private_folders() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["/tmp", "/var/tmp", "/run", "/dev/shm"]
        .iter()
        .map(PathBuf::from)
        .collect();
    for var in ["XDG_RUNTIME_DIR", "TMPDIR"] {
        if let Some(p) = std::env::var_os(var).map(PathBuf::from)
            && p.is_absolute()
            && !v.iter().any(|d| p.starts_with(d))
        {
            v.push(p);
        }
    }
    // A path that is a symlink (`/var/run` → `/run`) or missing cannot be
    // a mount point; what it points at is covered by its target's entry.
    v.retain(|p| p.symlink_metadata().is_ok_and(|m| m.is_dir()));
    v
}

/// bubblewrap's arguments up to (not including) the program to run:
/// every namespace unshared (no network, no other processes, no IPC), a
/// new session (no terminal injection), gone when Hearth goes, the root
/// read-only, a fresh `/dev` and `/proc`, private temp and runtime folders,
/// the workspace read-write (but what git runs from, and the `protected`
/// paths in it, read-only; all of it with `read_only`),
/// starting in `cwd`.
pub(super) fn args(
    launcher: &Path,
    workspace: &Path,
    cwd: &Path,
    protected: &[PathBuf],
    read_only: bool,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    for dir in private_folders() {
        a.push("--tmpfs".into());
        a.push(dir.into());
    }
    a.push("--ro-bind".into());
    a.push(launcher.into());
    a.push(LAUNCHER_INSIDE.into());
    a.push(if read_only { "--ro-bind" } else { "--bind" }.into());
    a.push(workspace.into());
    a.push(workspace.into());
    // Inside the workspace, what runs code later outside any sandbox (git:
    // `.git` whole, and what it names, `runs_later`) and what the caller
    // protects (Hearth's own data, when the workspace holds it) stay
    // read-only. Each is a mount point then, which cannot be renamed away.
    for p in super::runs_later::protected(workspace, protected) {
        let real = p
            .symlink_metadata()
            .is_ok_and(|m| !m.file_type().is_symlink());
        if real {
            a.push("--ro-bind".into());
            a.push(p.clone().into());
            a.push(p.into());
        }
    }
    a.push("--chdir".into());
    a.push(cwd.into());
    a.push("--setenv".into());
    a.push("TMPDIR".into());
    a.push("/tmp".into());
    a.push("--".into());
    a
}
