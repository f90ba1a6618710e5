//! run_shell's sandbox. A shell cannot be confined by path checks, so on
//! Linux kernels with Landlock the command runs in a process that has
//! restricted itself first: it may read and run anything (tools need
//! `/usr`), but write only beneath the workspace, the temp folder and
//! `/dev`. The restriction happens in a re-exec of the Hearth binary itself
//! (`<exe> --hearth-sandbox-exec WORKSPACE -- PROGRAM ARGS…`): Landlock
//! applies to the calling process and survives `exec`, and doing it there
//! needs no `unsafe` `pre_exec` hook. Front ends call
//! [`run_if_requested`] first thing in `main`.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use landlock::{
    ABI, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError, RulesetStatus,
    path_beneath_rules,
};

/// The argument that turns a Hearth binary into the sandbox launcher.
pub const SANDBOX_FLAG: &str = "--hearth-sandbox-exec";

/// Said on stderr when the kernel cannot enforce the sandbox.
pub const NOT_ENFORCED: &str =
    "hearth: this kernel has no Landlock: the command runs without the write sandbox";

/// The launcher's argument list for running `program args…` sandboxed.
pub fn launcher_args(workspace: &Path, program: &str, args: &[&str]) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec![
        SANDBOX_FLAG.into(),
        workspace.into(),
        "--".into(),
        program.into(),
    ];
    v.extend(args.iter().map(OsString::from));
    v
}

/// When this process was started as the launcher, restrict it and `exec`
/// the program: returns only when that failed (with the exit code to use).
/// `None`: a normal start.
pub fn run_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(SANDBOX_FLAG)) {
        return None;
    }
    let (Some(workspace), Some(sep), Some(program)) = (args.next(), args.next(), args.next())
    else {
        eprintln!("hearth: usage: {SANDBOX_FLAG} WORKSPACE -- PROGRAM [ARGS…]");
        return Some(ExitCode::from(2));
    };
    if sep != "--" {
        eprintln!("hearth: usage: {SANDBOX_FLAG} WORKSPACE -- PROGRAM [ARGS…]");
        return Some(ExitCode::from(2));
    }
    match restrict(Path::new(&workspace)) {
        Ok(RulesetStatus::NotEnforced) => eprintln!("{NOT_ENFORCED}"),
        Ok(_) => {}
        Err(e) => {
            eprintln!("hearth: cannot set up the sandbox: {e}");
            return Some(ExitCode::from(126));
        }
    }
    let err = Command::new(&program).args(args).exec();
    eprintln!("hearth: cannot run {}: {err}", program.to_string_lossy());
    Some(ExitCode::from(127))
}

/// Read and execute everywhere; write only beneath the workspace, the temp
/// folder and /dev (for /dev/null and the terminal).
fn restrict(workspace: &Path) -> Result<RulesetStatus, RulesetError> {
    let abi = ABI::V5;
    let writable: Vec<PathBuf> = vec![
        workspace.to_path_buf(),
        std::env::temp_dir(),
        PathBuf::from("/dev"),
    ];
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))?
        .restrict_self()?;
    Ok(status.ruleset)
}
