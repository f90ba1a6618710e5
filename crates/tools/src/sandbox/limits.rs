//! Resource limits a command starts with (turn-2 review L10).
//!
//! The walls keep a command's writes and reach inside the workspace; these
//! keep it from taking the machine down from there:
//! - **processes**: a fork bomb gets [`SPARE_TASKS`] more tasks than its
//!   user has when it starts, then `fork` fails (EAGAIN) and the user's
//!   desktop can still start programs until Stop ends the command. The
//!   kernel counts per user, threads included; inside bubblewrap's user
//!   namespace it counts that namespace's tasks. (It exempts root, so the
//!   bound holds for the desktop users Hearth is for, not for root.)
//! - **core files**: none, so a crash writes no image of the command's
//!   memory into the workspace.
//!
//! Not limited, on purpose: memory (an address-space limit breaks the V8,
//! JVM and WebAssembly runtimes that reserve far more than they use; the
//! kernel's OOM killer picks the biggest process, which is the command's),
//! file size (builds and archives are legitimately large) and CPU time
//! (Stop and the tool's timeout end a command).

use rustix::process::{Resource, Rlimit, getrlimit, getuid, setrlimit};

/// How many tasks a command may add to what its user runs already.
pub(super) const SPARE_TASKS: u64 = 1024;

/// Sets the limits on this process, which the command `exec`s into.
pub(super) fn apply() -> rustix::io::Result<()> {
    setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )?;
    let tasks = tasks_of(getuid().as_raw()) + SPARE_TASKS;
    let now = getrlimit(Resource::Nproc);
    let lower = |v: Option<u64>| Some(v.map_or(tasks, |v| v.min(tasks)));
    setrlimit(
        Resource::Nproc,
        Rlimit {
            current: lower(now.current),
            maximum: lower(now.maximum),
        },
    )
}

/// The tasks (threads of every process) this user runs that this process
/// can see: the whole machine on the host, the namespace inside bubblewrap.
/// By each process's real uid, as the kernel counts (the owner of
/// `/proc/PID` is the effective one, and shows root for a process that is
/// not dumpable, such as ssh-agent).
fn tasks_of(uid: u32) -> u64 {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter_map(|status| {
            let field = |name: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            };
            (field("Uid:")? == u64::from(uid)).then(|| field("Threads:").unwrap_or(1))
        })
        .sum()
}
