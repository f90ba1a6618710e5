//! run_shell: a command in the workspace, with a timeout and an output
//! cap, confined by the kernel (`sandbox`). It runs in its own process
//! group, and the whole group is killed when the user stops the run, when
//! the timeout passes, or when the call is abandoned any other way (the
//! guard's drop) — no process is left behind (inside bubblewrap, one that
//! left the group with `setsid` goes with the namespace). It always asks
//! first, and the question says what the sandbox enforces on this machine.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};
use rustix::process::{Pid, Signal, kill_process_group};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use crate::confine::Workspace;
use crate::files::str_arg;
use crate::output::{MAX_OUTPUT_CHARS, cap};
use crate::sandbox::{self, Confinement};

const DEFAULT_TIMEOUT: u64 = 60;
const MAX_TIMEOUT: u64 = 600;
/// Bytes kept per stream (the rest is counted, not stored).
const KEEP_BYTES: usize = 256 * 1024;

/// Runs a shell command in the workspace.
#[derive(Debug, Clone, Default)]
pub struct RunShell {
    /// The binary that restricts itself and then runs the command
    /// (`sandbox`); `None`: no sandbox can be set up, so commands are
    /// refused unless the profile turned the sandbox off.
    launcher: Option<PathBuf>,
    /// Paths a command must not change even inside the workspace (Hearth's
    /// own data: a command that edits it could turn the sandbox off).
    protected: Vec<PathBuf>,
}

impl RunShell {
    /// A shell tool; sandboxed through `launcher` when given.
    pub fn new(launcher: Option<PathBuf>) -> Self {
        Self {
            launcher,
            protected: Vec::new(),
        }
    }

    /// Keep `paths` read-only to commands (where bubblewrap runs).
    #[must_use]
    pub fn protecting(mut self, paths: Vec<PathBuf>) -> Self {
        self.protected = sandbox::real_paths(paths);
        self
    }

    /// Why commands in `workspace` can change what runs outside the
    /// sandbox later, beyond what the sandbox keeps read-only: it holds
    /// Hearth's own data or skills, or the home folder. `None`: it does not.
    fn holds_what_runs_later(&self, workspace: &std::path::Path) -> Option<String> {
        let ws = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .map(|h| std::fs::canonicalize(&h).unwrap_or(h));
        if let Some(home) = home.filter(|h| h.starts_with(&ws)) {
            return Some(format!(
                "this workspace ({}) holds your whole home folder ({}): a command here can change the programs, settings and shell start-up files you run later, outside any sandbox; choose a project folder as the workspace instead",
                ws.display(),
                home.display()
            ));
        }
        let held: Vec<String> = self
            .protected
            .iter()
            .filter(|p| p.starts_with(&ws))
            .map(|p| p.display().to_string())
            .collect();
        (!held.is_empty()).then(|| {
            format!(
                "this workspace holds Hearth's own data ({}): the sandbox keeps it read-only, but a command here could still move the folders around it, and what Hearth then reads (its MCP servers, hooks, skills, sandbox setting) runs outside the sandbox; choose a folder that does not hold it as the workspace",
                held.join(", ")
            )
        })
    }

    /// How commands are confined here (probed once, on first use).
    pub fn confinement(&self) -> Confinement {
        match &self.launcher {
            Some(l) => sandbox::confinement(l).clone(),
            None => Confinement::Unavailable("this front end has no sandbox launcher".into()),
        }
    }
}

/// Kills the process group when dropped, unless the command ended.
pub(crate) struct GroupGuard(pub(crate) Option<i32>);

impl GroupGuard {
    pub(crate) fn kill(&mut self) {
        if let Some(pgid) = self.0.take()
            && let Some(pid) = Pid::from_raw(pgid)
        {
            // ESRCH (already gone) is fine. A Landlock launcher stopped
            // before it made its own group has no group yet: it is killed
            // by `kill_on_drop`, and has started nothing.
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

pub(crate) async fn drain(mut r: impl AsyncRead + Unpin) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 {
            break;
        }
        total += n;
        let room = KEEP_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    (kept, total)
}

fn section(name: &str, (bytes, total): &(Vec<u8>, usize)) -> String {
    let mut s = format!("--- {name} ---\n{}", String::from_utf8_lossy(bytes));
    if *total > bytes.len() {
        s.push_str(&format!(
            "\n[{name}: {total} bytes; the first {} kept]",
            bytes.len()
        ));
    }
    s
}

#[async_trait]
impl Tool for RunShell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "run_shell".into(),
            description: "Run a shell command (sh -c) in the workspace folder and return its exit code and output. Asks the user first every time.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "cwd": {"type": "string", "description": "folder relative to the workspace", "default": "."},
                    "timeout_secs": {"type": "integer", "default": DEFAULT_TIMEOUT, "maximum": MAX_TIMEOUT}
                },
                "required": ["command"]
            }),
        }
    }

    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Mutating
    }

    fn session_allowance(&self) -> bool {
        // Each command is a new question: one "yes" must not cover the next.
        false
    }

    fn reach(&self, arguments: &Value, ctx: &ToolContext) -> String {
        let command = arguments
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let place = ctx
            .workspace
            .as_deref()
            .map_or_else(|| "the workspace".to_owned(), |w| w.display().to_string());
        if ctx.sandbox_off {
            return format!(
                "runs `{command}` in {place} as you, NOT sandboxed (the profile turned the sandbox off): it can read and change any file your account can, start programs and use the network"
            );
        }
        let how = ctx.workspace.as_deref().map_or_else(
            || "refused: the profile has no workspace".to_owned(),
            |w| self.confinement().describe(w),
        );
        if ctx.read_only {
            return format!(
                "runs `{command}` in {place}, {how}; for this review the folder is read-only too: the command cannot change any file"
            );
        }
        format!("runs `{command}` in {place}, {how}")
    }

    fn warning(&self, _arguments: &Value, ctx: &ToolContext) -> Option<String> {
        // Unconfined, a command is asked for every time: no pre-approval
        // covers it.
        if ctx.sandbox_off {
            return Some("this command runs NOT sandboxed, with your full rights: the sandbox is turned off in this profile".to_owned());
        }
        // A workspace that holds what Hearth itself runs from, or the whole
        // home folder, is one a command can change Hearth from: asked every
        // time, and said, so a "yes" is given knowingly.
        ctx.workspace
            .as_deref()
            .and_then(|w| self.holds_what_runs_later(w))
    }

    fn refuse(&self, _arguments: &Value, ctx: &ToolContext) -> Option<String> {
        if ctx.workspace.is_none() {
            return Some("run_shell needs a workspace folder, and this profile has none; the user can set one in the profile".into());
        }
        if ctx.sandbox_off && ctx.read_only {
            return Some("run_shell is refused in a /plan review when the profile turns the sandbox off: unconfined, a command could change files, and a review may not; read the files instead".into());
        }
        if ctx.sandbox_off {
            return None;
        }
        match self.confinement() {
            Confinement::Unavailable(why) => Some(format!(
                "run_shell is refused: commands cannot be sandboxed on this machine ({why}). The user can turn the sandbox off in the profile to run commands with their full rights; do not try to run this another way"
            )),
            _ => None,
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let command = str_arg(&args, "command")?.to_owned();
        let timeout = args
            .get("timeout_secs")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_TIMEOUT)
            .clamp(1, MAX_TIMEOUT);
        let ws = Workspace::open(ctx)?;
        let cwd_arg = args.get("cwd").and_then(Value::as_str).unwrap_or(".");
        let rel = ws.relative(cwd_arg)?;
        // The folder must exist inside the workspace when checked; the
        // shell itself is not confined (see the approval text).
        if rel.as_os_str() != "." {
            ws.dir().open_dir(&rel).map_err(|e| ws.io(cwd_arg, &e))?;
        }
        // The sandbox binds and rules by real paths (bubblewrap mounts the
        // workspace at the same place; a symlink on the way would differ).
        let root = std::fs::canonicalize(ws.root()).map_err(|e| ws.io(".", &e))?;
        let cwd = root.join(&rel);
        // The Landlock launcher starts its own session (away from Hearth's
        // terminal), and so its own group; the others get a group here.
        let mut own_session = false;
        let (program, argv) = if ctx.sandbox_off {
            let argv = ["-c", command.as_str()].map(Into::into).to_vec();
            (PathBuf::from("sh"), argv)
        } else {
            let confinement = self.confinement();
            own_session = matches!(confinement, Confinement::Landlock { .. });
            let launcher = self
                .launcher
                .as_deref()
                .unwrap_or(std::path::Path::new("hearth"));
            sandbox::shell_command(
                &confinement,
                launcher,
                &root,
                &cwd,
                &command,
                &self.protected,
                ctx.read_only,
            )
            .ok_or_else(|| ToolError::Failed(self.refuse(&args, ctx).unwrap_or_default()))?
        };
        // What git and Hearth run later from the workspace, as it is now:
        // what the command replaced anyway is reported with its result.
        let before =
            (!ctx.sandbox_off).then(|| sandbox::runs_later::Snapshot::take(&root, &self.protected));
        let mut cmd = Command::new(program);
        // No key, token or agent socket from the app's environment.
        cmd.args(argv)
            .env_clear()
            .envs(sandbox::allowed_env(std::env::vars_os()));
        if !own_session {
            cmd.process_group(0);
        }
        let mut child = cmd
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ToolError::Failed(format!("cannot start the shell: {e}")))?;
        let mut guard = GroupGuard(child.id().and_then(|id| i32::try_from(id).ok()));
        let (out, err) = (child.stdout.take(), child.stderr.take());
        let work = async {
            let (o, e, status) = tokio::join!(
                async {
                    match out {
                        Some(r) => drain(r).await,
                        None => (Vec::new(), 0),
                    }
                },
                async {
                    match err {
                        Some(r) => drain(r).await,
                        None => (Vec::new(), 0),
                    }
                },
                child.wait()
            );
            (o, e, status)
        };
        // Stop drops this future: the guard kills the group. A timeout does
        // the same, explicitly.
        let (o, e, status) = match tokio::time::timeout(Duration::from_secs(timeout), work).await {
            Ok(r) => r,
            Err(_) => {
                guard.kill();
                return Err(ToolError::Failed(format!(
                    "`{command}` ran longer than {timeout} s and was killed (with everything it started)"
                )));
            }
        };
        // Children it left in the background go with the group.
        guard.kill();
        let code = match status {
            Ok(s) => s.code().map_or_else(
                || "killed by a signal".to_owned(),
                |c| format!("exit code {c}"),
            ),
            Err(e) => format!("unknown exit ({e})"),
        };
        let mut text = format!("{code}\n{}", section("stdout", &o));
        if e.1 > 0 {
            text.push('\n');
            text.push_str(&section("stderr", &e));
        }
        if let Some(changed) = before.map(|b| b.changed())
            && !changed.is_empty()
        {
            let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
            text.push_str(&format!(
                "\n[Hearth: this command replaced, removed or made {}, which git or Hearth runs code from outside the sandbox; the user should check it before running git in this folder]",
                names.join(", ")
            ));
        }
        Ok(cap(
            text,
            MAX_OUTPUT_CHARS,
            "run_shell",
            "redirect the output to a file and read parts of it",
        ))
    }
}
