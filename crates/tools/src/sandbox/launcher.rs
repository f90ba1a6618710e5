//! The launcher: a re-exec of the Hearth binary itself that restricts
//! itself and then `exec`s the command. Landlock and seccomp bind the
//! calling process and survive `exec`, and doing it in a fresh process
//! needs no `unsafe` `pre_exec` hook. Front ends call [`run_if_requested`]
//! first thing in `main`.
//!
//! `<exe> --hearth-sandbox-exec MODE WORKSPACE -- PROGRAM ARGS…` runs a
//! program; `… MODE WORKSPACE --probe` applies the same restrictions and
//! reports what held (one line on stdout), for [`super::probe`].

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

/// The probe's report line prefix.
pub(super) const REPORT: &str = "hearth-sandbox landlock=";

fn usage() -> ExitCode {
    eprintln!(
        "hearth: usage: {SANDBOX_FLAG} namespaced|host WORKSPACE (-- PROGRAM [ARGS…] | --probe)"
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
    let (Some(mode), Some(workspace), Some(next)) = (args.next(), args.next(), args.next()) else {
        return Some(usage());
    };
    let namespaced = match mode.to_str() {
        Some(NAMESPACED) => true,
        Some(HOST) => false,
        _ => return Some(usage()),
    };
    let level = match confine(Path::new(&workspace), namespaced) {
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

/// Landlock, then seccomp. On the host Landlock is the only wall against
/// writes, so a kernel without it is an error; inside bubblewrap it is a
/// second wall and may be missing.
fn confine(workspace: &Path, namespaced: bool) -> Result<u8, String> {
    let level = restrict::landlock(workspace, !namespaced).map_err(|e| format!("Landlock: {e}"))?;
    if level == 0 && !namespaced {
        return Err("this kernel has no Landlock, so writes cannot be confined".into());
    }
    seccomp::install(namespaced).map_err(|e| format!("seccomp: {e}"))?;
    Ok(level)
}
