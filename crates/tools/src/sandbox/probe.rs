//! What this machine can enforce, found once by running the launcher the
//! way a command would run (a check of versions would say what should
//! hold; this says what did).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::launcher::{HOST, NAMESPACED, REPORT, SANDBOX_FLAG};
use super::{bwrap, env::allowed_env};

/// How commands are confined on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// bubblewrap namespaces, with Landlock at `landlock` (0: none) and
    /// seccomp inside.
    Bubblewrap {
        /// The bubblewrap binary.
        bwrap: PathBuf,
        /// Landlock level inside (a second wall).
        landlock: u8,
    },
    /// Landlock at `level` plus seccomp, without namespaces (bubblewrap is
    /// missing or cannot create namespaces here).
    Landlock {
        /// Landlock level (1–9).
        level: u8,
        /// Why bubblewrap is not used.
        no_bwrap: NoBwrap,
    },
    /// Nothing real can be enforced: why.
    Unavailable(String),
}

impl Confinement {
    /// The mechanism's name, for the approval text and test reports.
    pub fn mechanism(&self) -> &'static str {
        match self {
            Confinement::Bubblewrap { .. } => "bubblewrap",
            Confinement::Landlock { .. } => "landlock",
            Confinement::Unavailable(_) => "none",
        }
    }

    /// What a sandboxed command can and cannot do here, in words for the
    /// approval ("sandboxed by …: no network, writes only in ~/proj").
    pub fn describe(&self, workspace: &Path) -> String {
        let ws = workspace.display();
        match self {
            Confinement::Bubblewrap { .. } => format!(
                "sandboxed by bubblewrap: no network, no access to other programs (their processes, sockets and the desktop session), no secrets from the environment, a private /tmp, and writes only inside {ws} (where .git, and the hooks and files git's config names there, stay read-only); it can read files your account can read"
            ),
            Confinement::Landlock { level, no_bwrap } => {
                let mut s = format!(
                    "sandboxed by Landlock and seccomp ({}): no network, no connections to other programs' sockets, no secrets from the environment, no permission changes, and writes only inside {ws} and the temp folder (where .git, and the hooks and files git's config names there, stay as they are: nothing can be made, removed or renamed beside them); it can read files your account can read and change file timestamps",
                    no_bwrap.short()
                );
                if *level < 6 {
                    s.push_str(", and on this kernel (Landlock level below 6, before Linux 6.12) it could still send signals to your other programs");
                }
                s
            }
            Confinement::Unavailable(why) => format!(
                "NOT sandboxed on this machine ({why}), so Hearth will not run it; to run commands with your full rights, turn the sandbox off in the profile"
            ),
        }
    }
}

/// Why bubblewrap is not what confines commands here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBwrap {
    /// `HEARTH_SANDBOX=landlock` asked for the fallback.
    Asked,
    /// No bubblewrap installed by the system.
    Missing,
    /// The system does not let programs create user namespaces, which
    /// bubblewrap needs (AppArmor on Ubuntu 23.10 and later, a sysctl
    /// elsewhere): `restriction` says what restricts them, `said` what
    /// bubblewrap said.
    NoUserNamespaces {
        /// What restricts them, as far as this machine tells.
        restriction: String,
        /// Bubblewrap's own words.
        said: String,
    },
    /// It failed otherwise.
    Failed(String),
}

impl NoBwrap {
    /// In a few words, for the approval text.
    pub fn short(&self) -> &'static str {
        match self {
            Self::Asked => "bubblewrap turned off with HEARTH_SANDBOX=landlock",
            Self::Missing => "no bubblewrap here",
            Self::NoUserNamespaces { .. } => {
                "bubblewrap cannot create its namespaces on this system"
            }
            Self::Failed(_) => "bubblewrap cannot run here",
        }
    }
}

impl std::fmt::Display for NoBwrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Asked => f.write_str("HEARTH_SANDBOX=landlock"),
            Self::Missing => f.write_str("bubblewrap is not installed"),
            Self::NoUserNamespaces { restriction, said } => write!(
                f,
                "bubblewrap cannot create the user namespace it needs: {restriction} ({said})"
            ),
            Self::Failed(e) => write!(f, "bubblewrap cannot run here: {e}"),
        }
    }
}

/// What bubblewrap says when it cannot make its user namespace: AppArmor's
/// refusal on Ubuntu ("setting up uid map: Permission denied"), a kernel
/// that refuses them to unprivileged programs ("No permissions to create(ing)
/// new namespace"), a limit of none ("Creating new namespace failed: …
/// ENOSPC").
const NO_USERNS_SAID: [&str; 5] = [
    "setting up uid map",
    "setting up gid map",
    "No permissions to create new namespace",
    "No permissions to creating new namespace",
    "Creating new namespace failed",
];

/// What restricts user namespaces on this machine, read from the knobs
/// that do: AppArmor's (Ubuntu), Debian's older sysctl, the per-namespace
/// limit.
fn userns_restriction(read: impl Fn(&str) -> Option<String>) -> String {
    let is = |path: &str, value: &str| read(path).is_some_and(|v| v.trim() == value);
    if is(
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "1",
    ) {
        "AppArmor does not let programs create user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1, as on Ubuntu 23.10 and later; the hearth package's AppArmor profile, /etc/apparmor.d/hearth-app, lets the installed /usr/bin/hearth-app alone create them; a copy run from anywhere else, or without the profile, has Landlock and seccomp only)".to_owned()
    } else if is("/proc/sys/kernel/unprivileged_userns_clone", "0") {
        "the kernel does not let unprivileged programs create user namespaces (kernel.unprivileged_userns_clone = 0)".to_owned()
    } else if is("/proc/sys/user/max_user_namespaces", "0") {
        "no user namespace may be created here (user.max_user_namespaces = 0)".to_owned()
    } else {
        "this system does not let programs create user namespaces".to_owned()
    }
}

/// Why bubblewrap failed, from its last line on stderr.
fn why_no_bwrap(e: ProbeError, read: impl Fn(&str) -> Option<String>) -> NoBwrap {
    match e {
        ProbeError::Failed { line, .. } if NO_USERNS_SAID.iter().any(|s| line.contains(s)) => {
            NoBwrap::NoUserNamespaces {
                restriction: userns_restriction(read),
                said: line,
            }
        }
        e => NoBwrap::Failed(e.to_string()),
    }
}

/// A sysctl's value, if this machine has it.
fn sysctl(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Where a system's bubblewrap is installed (Debian, Fedora, Arch: the
/// first; a hand-built one: the last).
const BWRAP_AT: [&str; 3] = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/// Which bubblewrap binary: the system's, never the first `bwrap` on
/// `PATH`: a folder there the user can write (`~/.local/bin`, which a
/// sandboxed command in a home workspace could fill) would let a planted
/// `bwrap` run every later command unconfined while the question said
/// "sandboxed". Only a file root owns and no one else can change counts.
fn find_bwrap() -> Option<PathBuf> {
    BWRAP_AT.iter().map(PathBuf::from).find(|p| system_owned(p))
}

/// A regular file (links followed) owned by root that neither its group
/// nor others may write.
fn system_owned(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.uid() == 0 && m.mode() & 0o022 == 0)
}

/// Why a probe reported no level (the text goes into
/// [`Confinement::Unavailable`] and bubblewrap's reason).
#[derive(Debug, thiserror::Error)]
enum ProbeError {
    /// The probe could not be run at all.
    #[error("{0}")]
    Run(std::io::Error),
    /// It ran and did not report: how it ended, and the last line it
    /// wrote on stderr.
    #[error("{status} ({line})")]
    Failed {
        /// How it ended.
        status: std::process::ExitStatus,
        /// Its last line on stderr ("no output" when none).
        line: String,
    },
}

/// Run a probe command; its Landlock level when it reported one.
fn report(mut cmd: Command) -> Result<u8, ProbeError> {
    let out = cmd
        .env_clear()
        .envs(allowed_env(std::env::vars_os()))
        .stdin(Stdio::null())
        .output()
        .map_err(ProbeError::Run)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    match stdout.trim().strip_prefix(REPORT).map(str::parse::<u8>) {
        Some(Ok(level)) if out.status.success() => Ok(level),
        _ => {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err.lines().last().unwrap_or("no output").trim();
            Err(ProbeError::Failed {
                status: out.status,
                line: line.to_owned(),
            })
        }
    }
}

/// Find what this machine enforces for `launcher`. `HEARTH_SANDBOX=landlock`
/// skips bubblewrap (to test or diagnose the fallback; it cannot turn the
/// sandbox off).
pub fn probe(launcher: &Path) -> Confinement {
    let place = std::env::temp_dir();
    let no_bwrap = if std::env::var("HEARTH_SANDBOX").as_deref() == Ok("landlock") {
        NoBwrap::Asked
    } else {
        match find_bwrap() {
            None => NoBwrap::Missing,
            Some(bwrap) => {
                let mut cmd = Command::new(&bwrap);
                cmd.args(bwrap::args(launcher, &place, &place, &[], false))
                    .arg(bwrap::LAUNCHER_INSIDE)
                    .args([SANDBOX_FLAG, NAMESPACED])
                    .arg(&place)
                    .arg("--probe");
                match report(cmd) {
                    Ok(landlock) => return Confinement::Bubblewrap { bwrap, landlock },
                    Err(e) => why_no_bwrap(e, sysctl),
                }
            }
        }
    };
    let mut cmd = Command::new(launcher);
    cmd.args([SANDBOX_FLAG, HOST]).arg(&place).arg("--probe");
    match report(cmd) {
        Ok(level) if level > 0 => Confinement::Landlock { level, no_bwrap },
        Ok(_) => Confinement::Unavailable(format!("{no_bwrap}; the kernel has no Landlock")),
        Err(e) => Confinement::Unavailable(format!("{no_bwrap}; Landlock and seccomp failed: {e}")),
    }
}

/// [`probe`], once per process (the machine does not change under it).
pub fn confinement(launcher: &Path) -> &'static Confinement {
    static PROBED: OnceLock<Confinement> = OnceLock::new();
    PROBED.get_or_init(|| probe(launcher))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A `bwrap` of the user's (not root's, or writable by others) is never
    /// the one run, wherever it sits; the system's is.
    #[test]
    fn only_a_system_bubblewrap_counts() {
        let dir = tempfile::tempdir().unwrap();
        let planted = dir.path().join("bwrap");
        std::fs::write(&planted, "#!/bin/sh\nexec \"$@\"\n").unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(!system_owned(&planted));
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Root's own file passes only when root made it (the suite also
        // runs as an ordinary user, who owns it).
        assert_eq!(system_owned(&planted), rustix::process::getuid().is_root());
        assert!(!system_owned(dir.path()), "a folder is not a program");
        // This machine has bubblewrap installed by the system.
        let found = find_bwrap().expect("bubblewrap installed (scripts/setup.sh)");
        assert!(BWRAP_AT.iter().any(|p| found == Path::new(p)), "{found:?}");
    }

    fn failed(line: &str) -> ProbeError {
        use std::os::unix::process::ExitStatusExt;
        ProbeError::Failed {
            status: std::process::ExitStatus::from_raw(256),
            line: line.to_owned(),
        }
    }

    /// Bubblewrap refused its user namespace — by AppArmor (Ubuntu 23.10
    /// and later), by Debian's older sysctl, by a limit of none: each is
    /// told apart from any other failure, says what restricts them, and
    /// the approval says Landlock and seccomp hold and why.
    #[test]
    fn a_system_that_refuses_user_namespaces_is_recognised() {
        let knobs = |set: &'static str, value: &'static str| {
            move |path: &str| (path == set).then(|| format!("{value}\n"))
        };
        let apparmor = why_no_bwrap(
            failed("bwrap: setting up uid map: Permission denied"),
            knobs(
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                "1",
            ),
        );
        let NoBwrap::NoUserNamespaces { restriction, said } = &apparmor else {
            panic!("{apparmor:?}");
        };
        assert!(restriction.starts_with("AppArmor does not let programs create user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1"), "{restriction}");
        assert_eq!(said, "bwrap: setting up uid map: Permission denied");
        let debian = why_no_bwrap(
            failed(
                "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.",
            ),
            knobs("/proc/sys/kernel/unprivileged_userns_clone", "0"),
        );
        assert!(
            debian
                .to_string()
                .contains("kernel.unprivileged_userns_clone = 0"),
            "{debian}"
        );
        let none_left = why_no_bwrap(
            failed(
                "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
            ),
            knobs("/proc/sys/user/max_user_namespaces", "0"),
        );
        assert!(
            none_left
                .to_string()
                .contains("user.max_user_namespaces = 0"),
            "{none_left}"
        );
        // AppArmor present but not restricting: not blamed.
        let unknown = why_no_bwrap(
            failed("bwrap: setting up uid map: Permission denied"),
            knobs(
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                "0",
            ),
        );
        assert!(
            unknown
                .to_string()
                .contains("this system does not let programs create user namespaces"),
            "{unknown}"
        );
        // Any other failure stays what it was.
        let other = why_no_bwrap(
            failed("bwrap: execvp /x: No such file or directory"),
            knobs("", ""),
        );
        assert!(matches!(other, NoBwrap::Failed(_)), "{other:?}");
        // What holds is said in the approval, and why bubblewrap does not.
        let said = Confinement::Landlock {
            level: 6,
            no_bwrap: apparmor,
        }
        .describe(Path::new("/w"));
        assert!(said.starts_with("sandboxed by Landlock and seccomp (bubblewrap cannot create its namespaces on this system): no network"), "{said}");
    }
}
