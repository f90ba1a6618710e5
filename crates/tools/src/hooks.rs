//! The user's hooks: configured commands that get each event as JSON on
//! stdin and answer with JSON on stdout (docs/extending.md has both
//! shapes), the convention other agent tools use. Each runs in run_shell's
//! sandbox (no network, writes only inside the profile's workspace or a
//! scratch folder, a cut-down environment), with a timeout. A hook that
//! fails — it cannot start, times out, exits non-zero, or answers what is
//! not JSON — blocks the call it was asked about (`before_tool_call` fails
//! closed); after a call or before a model call, its failure is reported
//! and changes nothing.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::hooks::{After, Before, Hooks, Outcome};
use hearth_core::{ChatMessage, ToolCall, ToolContext};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::sandbox::{self, Confinement};
use crate::shell::{GroupGuard, drain};

/// Seconds a hook may take unless its configuration says otherwise.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 10;

/// One hook command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookCommand {
    /// A shell command line (`sh -c`).
    pub command: String,
    /// The tools it is asked about (a name, or a prefix ending in `*`);
    /// empty: every tool. Unused for `before_model_call`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Seconds it may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

/// Every hook, by event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// Asked before each call (in order; the first block wins, argument
    /// changes carry on to the next hook).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_tool_call: Vec<HookCommand>,
    /// Asked after each call that ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after_tool_call: Vec<HookCommand>,
    /// Asked before each model call of a conversation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_model_call: Vec<HookCommand>,
}

impl HookConfig {
    /// The configuration in `json`, or why it is not one.
    pub fn parse(json: &str) -> Result<Self, String> {
        let config: Self =
            serde_json::from_str(json).map_err(|e| format!("not a hook configuration: {e}"))?;
        for h in config
            .before_tool_call
            .iter()
            .chain(&config.after_tool_call)
            .chain(&config.before_model_call)
        {
            if h.command.trim().is_empty() {
                return Err("a hook's \"command\" is empty".into());
            }
        }
        Ok(config)
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.before_tool_call.is_empty()
            && self.after_tool_call.is_empty()
            && self.before_model_call.is_empty()
    }
}

/// The configured hooks, run as sandboxed commands.
pub struct CommandHooks {
    config: HookConfig,
    launcher: PathBuf,
    /// Where a hook may write when the run has no workspace.
    scratch: PathBuf,
}

impl CommandHooks {
    /// `config`, run through the sandbox `launcher` (the Hearth binary).
    pub fn new(config: HookConfig, launcher: PathBuf) -> Self {
        let scratch = std::env::temp_dir().join(format!("hearth-hooks-{}", std::process::id()));
        Self {
            config,
            launcher,
            scratch,
        }
    }

    /// Runs `hook` with `input`; its answer (`Value::Null` when it printed
    /// nothing), or why it failed.
    async fn run(
        &self,
        hook: &HookCommand,
        input: &Value,
        workspace: Option<&Path>,
    ) -> Result<Value, String> {
        let confinement = sandbox::confinement(&self.launcher).clone();
        if let Confinement::Unavailable(why) = &confinement {
            return Err(format!(
                "hooks run sandboxed, and this machine cannot sandbox ({why})"
            ));
        }
        let dir = match workspace {
            Some(w) => w.to_path_buf(),
            None => {
                std::fs::create_dir_all(&self.scratch)
                    .map_err(|e| format!("cannot make its scratch folder: {e}"))?;
                self.scratch.clone()
            }
        };
        let dir = std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let (program, argv) =
            sandbox::shell_command(&confinement, &self.launcher, &dir, &dir, &hook.command, &[])
                .ok_or("no sandbox")?;
        let mut cmd = Command::new(program);
        cmd.args(argv)
            .env_clear()
            .envs(sandbox::allowed_env(std::env::vars_os()))
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if !matches!(confinement, Confinement::Landlock { .. }) {
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
        let mut guard = GroupGuard(child.id().and_then(|id| i32::try_from(id).ok()));
        let (stdin, out, err) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let body = input.to_string();
        let work = async {
            let feed = async {
                if let Some(mut stdin) = stdin {
                    // A hook that does not read its input is its own affair.
                    let _ = stdin.write_all(body.as_bytes()).await;
                }
            };
            let read = |r: Option<tokio::process::ChildStdout>| async move {
                match r {
                    Some(r) => drain(r).await,
                    None => (Vec::new(), 0),
                }
            };
            let read_err = |r: Option<tokio::process::ChildStderr>| async move {
                match r {
                    Some(r) => drain(r).await,
                    None => (Vec::new(), 0),
                }
            };
            let ((), o, e, status) = tokio::join!(feed, read(out), read_err(err), child.wait());
            (o, e, status)
        };
        let secs = hook.timeout_secs.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS);
        let (o, e, status) = match tokio::time::timeout(Duration::from_secs(secs), work).await {
            Ok(r) => r,
            Err(_) => {
                guard.kill();
                return Err(format!("it did not answer within {secs} s"));
            }
        };
        guard.kill();
        let stderr = String::from_utf8_lossy(&e.0)
            .trim()
            .chars()
            .take(500)
            .collect::<String>();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                return Err(format!(
                    "it exited with {}{}",
                    s.code()
                        .map_or_else(|| "a signal".to_owned(), |c| format!("code {c}")),
                    if stderr.is_empty() {
                        String::new()
                    } else {
                        format!(": {stderr}")
                    }
                ));
            }
            Err(e) => return Err(format!("it could not be waited for: {e}")),
        }
        let text = String::from_utf8_lossy(&o.0);
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(text.trim()).map_err(|e| format!("its answer is not JSON ({e})"))
    }
}

fn applies(hook: &HookCommand, tool: &str) -> bool {
    hook.tools.is_empty()
        || hook.tools.iter().any(|t| match t.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => t == tool,
        })
}

fn decision(answer: &Value) -> &str {
    answer.get("decision").and_then(Value::as_str).unwrap_or("")
}

#[async_trait]
impl Hooks for CommandHooks {
    async fn before_tool_call(&self, call: &ToolCall, ctx: &ToolContext) -> Before {
        let mut arguments = call.arguments.clone();
        let mut changed = false;
        for hook in self
            .config
            .before_tool_call
            .iter()
            .filter(|h| applies(h, &call.name))
        {
            let input = json!({
                "event": "before_tool_call",
                "tool": call.name,
                "arguments": arguments,
                "session_id": ctx.session_id,
                "call_id": ctx.call_id,
            });
            let answer = match self.run(hook, &input, ctx.workspace.as_deref()).await {
                Ok(a) => a,
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "a before_tool_call hook failed: the call is blocked");
                    return Before::Block(format!(
                        "blocked: the hook `{}` failed ({why}), and a call its hook cannot judge does not run",
                        hook.command
                    ));
                }
            };
            match decision(&answer) {
                "block" => {
                    let result = answer
                        .get("result")
                        .and_then(Value::as_str)
                        .unwrap_or("blocked by a hook");
                    return Before::Block(result.to_owned());
                }
                _ => {
                    if let Some(a) = answer.get("arguments").filter(|a| a.is_object()) {
                        arguments = a.clone();
                        changed = true;
                    }
                }
            }
        }
        if changed {
            Before::Arguments(arguments)
        } else {
            Before::Pass
        }
    }

    async fn after_tool_call(
        &self,
        call: &ToolCall,
        outcome: Outcome<'_>,
        ctx: &ToolContext,
    ) -> After {
        let mut output = outcome.output.to_owned();
        let mut replaced = false;
        for hook in self
            .config
            .after_tool_call
            .iter()
            .filter(|h| applies(h, &call.name))
        {
            let input = json!({
                "event": "after_tool_call",
                "tool": call.name,
                "arguments": call.arguments,
                "ok": outcome.ok,
                "output": output,
                "session_id": ctx.session_id,
                "call_id": ctx.call_id,
            });
            match self.run(hook, &input, ctx.workspace.as_deref()).await {
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "an after_tool_call hook failed: the result is kept");
                }
                Ok(answer) => {
                    if decision(&answer) == "end_batch" {
                        return After::EndBatch(replaced.then_some(output));
                    }
                    if let Some(r) = answer.get("result").and_then(Value::as_str) {
                        output = r.to_owned();
                        replaced = true;
                    }
                }
            }
        }
        if replaced {
            After::Replace(output)
        } else {
            After::Pass
        }
    }

    async fn before_model_call(
        &self,
        messages: &[ChatMessage],
        session_id: &str,
    ) -> Option<Vec<ChatMessage>> {
        let mut current: Option<Vec<ChatMessage>> = None;
        for hook in &self.config.before_model_call {
            let shown = current.as_deref().unwrap_or(messages);
            let input = json!({
                "event": "before_model_call",
                "session_id": session_id,
                "messages": shown,
            });
            match self.run(hook, &input, None).await {
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "a before_model_call hook failed: the messages are kept");
                }
                Ok(answer) => {
                    if let Some(m) = answer.get("messages") {
                        match serde_json::from_value::<Vec<ChatMessage>>(m.clone()) {
                            Ok(m) => current = Some(m),
                            Err(e) => {
                                tracing::warn!(hook = %hook.command, "a before_model_call hook's messages are malformed: {e}");
                            }
                        }
                    }
                }
            }
        }
        current
    }
}
