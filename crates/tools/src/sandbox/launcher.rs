//! The launcher: a re-exec of the Hearth binary itself that restricts
//! itself and then `exec`s the command. Landlock and seccomp bind the
//! calling process and survive `exec`, and doing it in a fresh process
//! needs no `unsafe` `pre_exec` hook. Front ends call [`run_if_requested`]
//! first thing in `main`.
//!
//! `<exe> --hearth-sandbox-exec MODE WORKSPACE [--protect PATH]… -- PROGRAM
//! ARGS…` runs a program (the `--protect` paths, and what git runs from,
//! stay as they are: `runs_later`); `… MODE WORKSPACE --probe` applies the
//! same restrictions and reports what held (one line on stdout), for
//! [`super::probe`].

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitCode};

use super::{restrict, seccomp};

/// The argument that turns a Hearth binary into the sandbox launcher.
pub const SANDBOX_FLAG: &str = "--hearth-sandbox-exec";

/// Mode: inside bubblewrap's namespaces (IP reaches only their own
/// loopback; Landlock is a second wall, not required).
pub(super) const NAMESPACED: &str = "namespaced";
/// Mode: on the host (Landlock is the wall and must hold; no sockets).
pub(super) const HOST: &str = "host";
/// What a mode's name ends with when the workspace is read-only too (a
/// `/plan` review: it may read and run, never write).
pub(super) const READ_ONLY: &str = "+ro";

/// The probe's report line prefix.
pub(super) const REPORT: &str = "hearth-sandbox landlock=";

/// The option that names a path the command must not change.
pub(super) const PROTECT: &str = "--protect";

fn usage() -> ExitCode {
    eprintln!(
        "hearth: usage: {SANDBOX_FLAG} namespaced|host WORKSPACE [{PROTECT} PATH]… (-- PROGRAM [ARGS…] | --probe)"
    );
    ExitCode::from(2)
}

/// When this process was started as the launcher, restrict it and `exec`
/// the program: returns only when that failed (with the exit code to use).
/// `None`: a normal start.
pub fn run_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(SANDBOX_FLAG)) {
        return None;
    }
    let (Some(mode), Some(workspace), Some(mut next)) = (args.next(), args.next(), args.next())
    else {
        return Some(usage());
    };
    let mut protected = Vec::new();
    while next == PROTECT {
        let (Some(path), Some(after)) = (args.next(), args.next()) else {
            return Some(usage());
        };
        protected.push(std::path::PathBuf::from(path));
        next = after;
    }
    let mode = mode.to_str().unwrap_or_default();
    let (mode, read_only) = match mode.strip_suffix(READ_ONLY) {
        Some(m) => (m, true),
        None => (mode, false),
    };
    let namespaced = match mode {
        NAMESPACED => true,
        HOST => false,
        _ => return Some(usage()),
    };
    if let Err(e) = close_on_exec_above_stdio() {
        eprintln!(
            "hearth: the sandbox could not close inherited descriptors, so the command did not run: {e}"
        );
        return Some(ExitCode::from(126));
    }
    let level = match confine(Path::new(&workspace), namespaced, read_only, &protected) {
        Ok(level) => level,
        Err(e) => {
            eprintln!("hearth: the sandbox could not be set up, so the command did not run: {e}");
            return Some(ExitCode::from(126));
        }
    };
    if next == "--probe" {
        println!("{REPORT}{level}");
        return Some(ExitCode::SUCCESS);
    }
    let (true, Some(program)) = (next == "--", args.next()) else {
        return Some(usage());
    };
    let rest: Vec<OsString> = args.collect();
    let err = Command::new(&program).args(rest).exec();
    eprintln!("hearth: cannot run {}: {err}", program.to_string_lossy());
    Some(ExitCode::from(127))
}

/// Every descriptor above stderr is marked close-on-exec, so the command
/// starts with stdin, stdout and stderr only (security review N8): one
/// Hearth inherited (a wrapper script's `exec 9>>~/log` gave a command a
/// file outside its walls to append to) or a library opened without the
/// flag (WebKit's memory monitor leaves eight). bubblewrap passes them
/// through, so this runs inside it too. Marked rather than closed: this
/// process still owns them until `exec`, which drops them.
#[allow(unsafe_code)]
fn close_on_exec_above_stdio() -> std::io::Result<()> {
    use rustix::io::{Errno, FdFlags, fcntl_getfd, fcntl_setfd};
    use std::os::fd::BorrowedFd;
    let open: Vec<i32> = std::fs::read_dir("/proc/self/fd")?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for raw in open {
        // SAFETY: `raw` was listed open a moment ago and is borrowed only
        // for the two calls below, which change one flag and nothing the
        // owner relies on. The listing's own descriptor, closed since,
        // answers EBADF and is skipped; rustix has no `close_range`
        // without `unsafe` either.
        let fd = unsafe { BorrowedFd::borrow_raw(raw) };
        match fcntl_getfd(fd) {
            Ok(flags) if flags.contains(FdFlags::CLOEXEC) => {}
            Ok(flags) => fcntl_setfd(fd, flags | FdFlags::CLOEXEC)?,
            Err(Errno::BADF) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Which step of confining a command failed (the launcher prints it and
/// exits 126: the command does not run).
#[derive(Debug, thiserror::Error)]
enum ConfineError {
    /// Dropping root's capabilities.
    #[error("dropping capabilities: {0}")]
    Capabilities(rustix::io::Errno),
    /// Applying the Landlock rules.
    #[error("Landlock: {0}")]
    Landlock(landlock::RulesetError),
    /// On the host, a kernel without Landlock leaves writes unconfined.
    #[error("this kernel has no Landlock, so writes cannot be confined")]
    NoLandlock,
    /// Leaving Hearth's session.
    #[error("setsid: {0}")]
    Setsid(rustix::io::Errno),
    /// Setting the resource limits.
    #[error("resource limits: {0}")]
    Limits(rustix::io::Errno),
    /// Installing the seccomp filter.
    #[error("seccomp: {0}")]
    Seccomp(seccompiler::Error),
}

/// Landlock, resource limits (`limits`), then seccomp. On the host Landlock is the only wall against
/// writes, so a kernel without it is an error; inside bubblewrap it is a
/// second wall and may be missing.
fn confine(
    workspace: &Path,
    namespaced: bool,
    read_only: bool,
    protected: &[std::path::PathBuf],
) -> Result<u8, ConfineError> {
    drop_capabilities().map_err(ConfineError::Capabilities)?;
    // Inside bubblewrap these are read-only mounts already; on the host
    // Landlock grants the workspace around those that exist (one made by
    // the command, a repository where there was none, is reported after
    // it: `runs_later::Snapshot`).
    let protected: Vec<std::path::PathBuf> = if namespaced {
        Vec::new()
    } else {
        super::runs_later::protected(workspace, protected)
            .into_iter()
            .filter(|p| p.symlink_metadata().is_ok())
            .collect()
    };
    let level = restrict::landlock(workspace, !namespaced, read_only, &protected)
        .map_err(ConfineError::Landlock)?;
    if level == 0 && !namespaced {
        return Err(ConfineError::NoLandlock);
    }
    if !namespaced {
        // Leave Hearth's session (and so its terminal: no typing into the
        // CLI's approval prompt) before seccomp forbids it. The new
        // group's id is this process's id, which Hearth kills on stop.
        rustix::process::setsid().map_err(ConfineError::Setsid)?;
    }
    super::limits::apply().map_err(ConfineError::Limits)?;
    seccomp::install(namespaced).map_err(ConfineError::Seccomp)?;
    Ok(level)
}

/// A command run by root (or with any capability) keeps none: Landlock
/// lets a process with `CAP_SYS_PTRACE` read other processes' memory and
/// environment (`/proc/PID/environ`), and root could undo much else. The
/// bounding set is emptied and root's special treatment at `exec` locked
/// off, so nothing the command runs gets them back. An ordinary user has
/// none to drop.
fn drop_capabilities() -> rustix::io::Result<()> {
    use rustix::thread::{
        CapabilitiesSecureBits, CapabilitySet, CapabilitySets, capabilities,
        remove_capability_from_bounding_set, set_capabilities, set_capabilities_secure_bits,
    };
    let now = capabilities(None)?;
    if now.permitted.is_empty() && now.effective.is_empty() && now.inheritable.is_empty() {
        return Ok(());
    }
    for cap in CapabilitySet::all().iter() {
        // A capability this kernel does not know is EINVAL: nothing to drop.
        match remove_capability_from_bounding_set(cap) {
            Ok(()) | Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(e),
        }
    }
    set_capabilities_secure_bits(
        CapabilitiesSecureBits::NO_ROOT
            | CapabilitiesSecureBits::NO_ROOT_LOCKED
            | CapabilitiesSecureBits::NO_SETUID_FIXUP
            | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED,
    )?;
    set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
}
