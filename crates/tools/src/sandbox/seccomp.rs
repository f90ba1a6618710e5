//! The seccomp filter: what Landlock cannot say on the kernels people run.
//!
//! - `socket()` for UNIX sockets (another program's socket is a way out:
//!   `systemd-run`, D-Bus, `docker.sock`, an ssh-agent or ssh
//!   ControlMaster socket in the home folder), and outside bubblewrap's
//!   network namespace for every family (no network; UDP has no Landlock
//!   rule at all). `socketpair()` stays: it connects nothing outside.
//! - Opening read-only with `O_TRUNC` and `truncate(2)`: before Landlock
//!   level 3 (Linux 6.2, so stock Debian 12 and Ubuntu 22.04) truncation
//!   is not a write Landlock handles.
//! - Outside bubblewrap's process namespace, `setsid` and `setpgid`: a
//!   process that leaves the command's group would outlive the stop (the
//!   group is what is killed). Inside it the namespace ends with the
//!   command instead.
//! - Outside bubblewrap, changing permissions, owners and extended
//!   attributes (`chmod`, `chown`, `setxattr` families): Landlock does not
//!   cover metadata, so `chmod o+w ~/.bashrc` would pass it.
//! - Faking terminal input (`TIOCSTI`, `TIOCLINUX`) and the kernel keyring
//!   (`keyctl`, `add_key`, `request_key`: not namespaced).
//! - On x86_64, every x32 system call (numbers with bit 30 set): the
//!   filters below match exact numbers, and an x32 call carries the same
//!   architecture, so it would pass them where the kernel enables x32.
//! - `openat2` (its flags are behind a pointer seccomp cannot read) and
//!   `io_uring` (it opens and connects without the syscalls above): both
//!   answer ENOSYS, so programs fall back to the plain calls.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

/// The terminal ioctls that fake input, as numbered on x86_64 and aarch64
/// (the architectures seccompiler builds for).
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, seccompiler::Error> {
    Ok(SeccompCondition::new(
        arg,
        SeccompCmpArgLen::Dword,
        op,
        value,
    )?)
}

/// `socket(domain, …)` rules: every call, or all but the IP families
/// (inside a network namespace, where IP reaches only its own loopback).
fn socket_rules(allow_ip: bool) -> Result<Vec<SeccompRule>, seccompiler::Error> {
    if !allow_ip {
        return Ok(vec![]);
    }
    let not = |family: i32| cond(0, SeccompCmpOp::Ne, u64::from(family.unsigned_abs()));
    Ok(vec![SeccompRule::new(vec![
        not(libc::AF_INET)?,
        not(libc::AF_INET6)?,
    ])?])
}

/// An `open`-style call whose flags (argument `arg`) ask to truncate a
/// file opened without write access: read-only (`O_RDONLY`), or with the
/// access mode 3 Linux also takes ("neither read nor write", which Landlock
/// before ABI 3 asks no right for, and which still truncates).
fn truncating_read_open(arg: u8) -> Result<Vec<SeccompRule>, seccompiler::Error> {
    let mask = u64::from((libc::O_ACCMODE | libc::O_TRUNC).unsigned_abs());
    let trunc = u64::from(libc::O_TRUNC.unsigned_abs());
    let neither = u64::from(libc::O_ACCMODE.unsigned_abs());
    let mut rules = Vec::new();
    for flags in [trunc, neither | trunc] {
        rules.push(SeccompRule::new(vec![cond(
            arg,
            SeccompCmpOp::MaskedEq(mask),
            flags,
        )?])?);
    }
    Ok(rules)
}

fn denied(namespaced: bool) -> Result<Rules, seccompiler::Error> {
    let mut rules = Rules::new();
    rules.insert(libc::SYS_socket, socket_rules(namespaced)?);
    if !namespaced {
        rules.insert(libc::SYS_setsid, vec![]);
        rules.insert(libc::SYS_setpgid, vec![]);
    }
    rules.insert(libc::SYS_truncate, vec![]);
    rules.insert(libc::SYS_openat, truncating_read_open(2)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_open, truncating_read_open(1)?);
    let request = |r: u64| -> Result<SeccompRule, seccompiler::Error> {
        Ok(SeccompRule::new(vec![cond(1, SeccompCmpOp::Eq, r)?])?)
    };
    rules.insert(
        libc::SYS_ioctl,
        vec![request(TIOCSTI)?, request(TIOCLINUX)?],
    );
    for nr in [libc::SYS_keyctl, libc::SYS_add_key, libc::SYS_request_key] {
        rules.insert(nr, vec![]);
    }
    if !namespaced {
        for nr in metadata_calls() {
            rules.insert(nr, vec![]);
        }
    }
    Ok(rules)
}

/// Calls that change a file's permissions, owner or extended attributes.
fn metadata_calls() -> Vec<i64> {
    let mut v = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        // fchmodat2 (Linux 6.6); not in every libc's list yet.
        452,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([libc::SYS_chmod, libc::SYS_chown, libc::SYS_lchown]);
    v
}

/// On x86_64: any x32 call answers ENOSYS (a hand-written program:
/// seccompiler's rules match exact numbers only).
#[cfg(target_arch = "x86_64")]
fn no_x32() -> BpfProgram {
    use seccompiler::sock_filter;
    const X32_BIT: u32 = 0x4000_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    const RET_ALLOW: u32 = 0x7fff_0000;
    let op = |code: u16, jt: u8, jf: u8, k: u32| sock_filter { code, jt, jf, k };
    vec![
        // A = seccomp_data.nr
        op(0x20, 0, 0, 0),
        // if (A & X32_BIT) fall through to ERRNO, else skip it
        op(0x45, 0, 1, X32_BIT),
        op(0x06, 0, 0, RET_ERRNO | libc::ENOSYS.unsigned_abs()),
        op(0x06, 0, 0, RET_ALLOW),
    ]
}

fn absent() -> Rules {
    [
        libc::SYS_openat2,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ]
    .into_iter()
    .map(|nr| (nr, vec![]))
    .collect()
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno.unsigned_abs()),
        arch,
    )?;
    let program: BpfProgram = filter.try_into()?;
    Ok(program)
}

/// Install the filters on this thread (the launcher is single-threaded;
/// they pass to everything it `exec`s and forks). `namespaced`: inside
/// bubblewrap's namespaces (network and processes of its own).
pub(super) fn install(namespaced: bool) -> Result<(), seccompiler::Error> {
    #[cfg(target_arch = "x86_64")]
    seccompiler::apply_filter(&no_x32())?;
    seccompiler::apply_filter(&compile(denied(namespaced)?, libc::EACCES)?)?;
    seccompiler::apply_filter(&compile(absent(), libc::ENOSYS)?)?;
    Ok(())
}
