//! run_shell's sandbox: what a command may do, enforced by the kernel.
//!
//! A shell cannot be confined by checking paths, so the command runs in a
//! process that cannot do otherwise. Where the machine has a working
//! bubblewrap (Flatpak's sandbox) the command gets its own namespaces: no
//! network, no view of other processes, a private `/tmp` and `/run`, the
//! whole file system read-only except the workspace. Inside that, or alone
//! where bubblewrap cannot run, the Hearth binary restricts itself before
//! it `exec`s the shell (`launcher`): Landlock at the highest level the
//! kernel offers (writes, truncation, TCP, signals, abstract sockets) and a
//! seccomp filter for what Landlock cannot say on older kernels (UNIX and
//! network sockets, truncating opens, io_uring). The environment is cut to
//! an allow-list in every case, so no key or token reaches a command.
//!
//! What this machine can enforce is probed once (`probe`); the approval
//! text says exactly that, and where nothing real can be enforced the
//! command is refused unless the user turned the sandbox off for the
//! profile. `docs/security.md` has the table of attacks and what stops
//! each; `docs/adr/0010-shell-sandbox.md` why these mechanisms.

mod bwrap;
mod env;
mod launcher;
mod limits;
mod probe;
mod restrict;
pub mod runs_later;
mod seccomp;

use std::path::{Path, PathBuf};

pub use env::allowed_env;
pub use launcher::{SANDBOX_FLAG, run_if_requested};
pub use probe::{Confinement, NoBwrap, confinement, probe};

/// `paths` as the launcher compares them: real paths where they exist
/// (a protected path reached through a link is still protected).
pub(crate) fn real_paths(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .collect()
}

/// The argument list that runs `sh -c command` under `confinement`, as
/// (program, arguments). `None` when nothing can be enforced.
pub fn shell_command(
    confinement: &Confinement,
    launcher: &Path,
    workspace: &Path,
    cwd: &Path,
    command: &str,
    protected: &[PathBuf],
    read_only: bool,
) -> Option<(PathBuf, Vec<std::ffi::OsString>)> {
    let inner = |mode: &str, exe: &Path| -> Vec<std::ffi::OsString> {
        let mode = if read_only {
            format!("{mode}{}", launcher::READ_ONLY)
        } else {
            mode.to_owned()
        };
        let mut v: Vec<std::ffi::OsString> = vec![
            exe.into(),
            SANDBOX_FLAG.into(),
            mode.into(),
            workspace.into(),
        ];
        for p in protected.iter().filter(|p| p.starts_with(workspace)) {
            v.push(launcher::PROTECT.into());
            v.push(p.into());
        }
        v.extend(["--", "sh", "-c"].map(Into::into));
        v.push(command.into());
        v
    };
    match confinement {
        Confinement::Bubblewrap { bwrap, .. } => {
            let mut args = bwrap::args(launcher, workspace, cwd, protected, read_only);
            args.extend(inner(
                launcher::NAMESPACED,
                Path::new(bwrap::LAUNCHER_INSIDE),
            ));
            Some((bwrap.clone(), args))
        }
        Confinement::Landlock { .. } => {
            let mut args = inner(launcher::HOST, launcher);
            let exe = PathBuf::from(args.remove(0));
            Some((exe, args))
        }
        Confinement::Unavailable(_) => None,
    }
}
