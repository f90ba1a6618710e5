//! Finding a server's program the way the user's shell would. A desktop
//! app started from a menu often has a shorter PATH than the user's
//! terminal (no `~/.local/bin`, no nvm or uv shims), so a bare `npx` that
//! works in the shell is "not found" in the app: the most common way MCP
//! fails in desktop apps. Hearth searches its own PATH, then the one the
//! user's login shell sets up, and gives the child the union of both.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::OnceCell;

/// How long the login shell may take to print its PATH (a slow rc file
/// must not hold up a server's start).
const SHELL_PATH_TIMEOUT: Duration = Duration::from_secs(5);

/// The PATH the user's login shell sets up, read once (`None`: no shell,
/// or it failed or was slow).
async fn login_shell_path() -> Option<&'static OsString> {
    static PATH: OnceCell<Option<OsString>> = OnceCell::const_new();
    PATH.get_or_init(read_login_shell_path).await.as_ref()
}

async fn read_login_shell_path() -> Option<OsString> {
    let shell = std::env::var_os("SHELL").filter(|s| !s.is_empty())?;
    let mut cmd = tokio::process::Command::new(shell);
    // `-l` for the login profile, `-i` is not used: an interactive rc
    // file may wait for a terminal. The markers keep out what rc files
    // print.
    cmd.args([
        "-l",
        "-c",
        "printf '\\n__HEARTH_PATH__%s__HEARTH_END__' \"$PATH\"",
    ])
    .stdin(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .kill_on_drop(true);
    let out = tokio::time::timeout(SHELL_PATH_TIMEOUT, cmd.output())
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.rfind("__HEARTH_PATH__")? + "__HEARTH_PATH__".len();
    let end = start + text[start..].find("__HEARTH_END__")?;
    let path = &text[start..end];
    (!path.is_empty()).then(|| OsString::from(path))
}

/// A program found, and the PATH its child gets.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The program's full path.
    pub program: PathBuf,
    /// Hearth's PATH followed by the login shell's folders it lacks (so
    /// `npx` finds `node` the way it does in the terminal).
    pub path: OsString,
}

/// Why a server's program cannot be run. Each is the configuration's or
/// the machine's to fix (install it, give its full path, `chmod +x` it);
/// starting again unchanged fails the same way.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// A path given that is a file, but not an executable one.
    #[error("`{0}` is not executable (chmod +x it, or name its interpreter in \"command\")")]
    NotExecutable(String),
    /// A path given that does not exist.
    #[error("`{0}` does not exist")]
    Missing(String),
    /// A bare name on neither PATH.
    #[error("{}", not_found(.command, .own, .shell))]
    NotFound {
        /// The name.
        command: String,
        /// Hearth's own PATH.
        own: OsString,
        /// The login shell's PATH (empty: it could not be read).
        shell: OsString,
    },
}

/// `command` found on Hearth's PATH or the login shell's, or an error
/// that names both PATHs searched and what to do.
pub async fn resolve(command: &str, own_path: Option<OsString>) -> Result<Resolved, CommandError> {
    let shell = login_shell_path().await.cloned();
    resolve_with(command, own_path, shell)
}

/// [`resolve`] with the two PATHs given (tests).
pub fn resolve_with(
    command: &str,
    own_path: Option<OsString>,
    shell_path: Option<OsString>,
) -> Result<Resolved, CommandError> {
    let own = own_path.unwrap_or_default();
    let shell = shell_path.unwrap_or_default();
    let path = union(&own, &shell);
    if command.contains('/') {
        let program = PathBuf::from(command);
        return if is_executable(&program) {
            Ok(Resolved { program, path })
        } else if program.exists() {
            Err(CommandError::NotExecutable(command.to_owned()))
        } else {
            Err(CommandError::Missing(command.to_owned()))
        };
    }
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(command);
        if is_executable(&candidate) {
            return Ok(Resolved {
                program: candidate,
                path,
            });
        }
    }
    Err(CommandError::NotFound {
        command: command.to_owned(),
        own,
        shell,
    })
}

fn not_found(command: &str, own: &OsString, shell: &OsString) -> String {
    let hint = match command {
        "npx" | "node" | "npm" => " Install Node.js (it brings npx)",
        "uvx" | "uv" => " Install uv (it brings uvx)",
        "docker" => " Install Docker",
        _ => " Install it",
    };
    let shell_part = if shell.is_empty() {
        "your login shell's PATH could not be read".to_owned()
    } else {
        format!("your login shell's PATH: {}", shell.to_string_lossy())
    };
    format!(
        "command `{command}` was not found. Hearth searched its own PATH ({}) and {shell_part}.{hint}, or give its full path in \"command\".",
        own.to_string_lossy()
    )
}

fn union(first: &OsString, second: &OsString) -> OsString {
    let mut dirs: Vec<PathBuf> = std::env::split_paths(first).collect();
    for dir in std::env::split_paths(second) {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs.retain(|d| !d.as_os_str().is_empty());
    std::env::join_paths(dirs).unwrap_or_else(|_| first.clone())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_only_the_login_shell_knows_is_found_and_its_path_passed_on() {
        let own = tempfile::tempdir().unwrap();
        let shell = tempfile::tempdir().unwrap();
        let tool = shell.path().join("mytool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found =
            resolve_with("mytool", Some(own.path().into()), Some(shell.path().into())).unwrap();
        assert_eq!(found.program, tool);
        let dirs: Vec<PathBuf> = std::env::split_paths(&found.path).collect();
        assert_eq!(dirs, vec![own.path().to_owned(), shell.path().to_owned()]);
    }

    #[test]
    fn not_found_names_both_paths_and_what_to_install() {
        let err =
            resolve_with("npx", Some("/nowhere/a".into()), Some("/nowhere/b".into())).unwrap_err();
        assert!(matches!(err, CommandError::NotFound { .. }), "{err:?}");
        let err = err.to_string();
        assert!(err.contains("`npx` was not found"), "{err}");
        assert!(
            err.contains("/nowhere/a") && err.contains("/nowhere/b"),
            "{err}"
        );
        assert!(err.contains("Node.js"), "{err}");
        let err = resolve_with("uvx", Some("/nowhere".into()), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("could not be read") && err.contains("uv"),
            "{err}"
        );
    }

    #[test]
    fn a_full_path_must_be_an_executable_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("server.py");
        std::fs::write(&file, "print()").unwrap();
        let err = resolve_with(file.to_str().unwrap(), None, None).unwrap_err();
        assert_eq!(
            err,
            CommandError::NotExecutable(file.to_str().unwrap().to_owned())
        );
        assert!(err.to_string().contains("not executable"), "{err}");
        let err = resolve_with("/no/such/server", None, None).unwrap_err();
        assert_eq!(err, CommandError::Missing("/no/such/server".into()));
        assert_eq!(err.to_string(), "`/no/such/server` does not exist");
    }
}
